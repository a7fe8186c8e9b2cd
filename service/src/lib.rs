//! The Asset Alerting Service: the generated `AssetAlertingApi` implemented over a [`store::Store`].

pub mod api;
pub mod app;
pub mod auth;
pub mod breaker;
pub mod config;
pub mod contract;
pub mod delivery;
pub mod dispatch;
mod handlers;
pub mod keys;
pub mod live;
pub mod logging;
pub mod monitoring;
pub mod pages;
pub mod pipeline;
pub mod portal;
pub mod rules;
pub mod store;
pub mod throttle;
pub mod trackers;
pub mod web;
