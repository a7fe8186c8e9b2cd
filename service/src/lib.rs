//! The Asset Alerting Service: the generated `AssetAlertingApi` implemented over a [`store::Store`].

pub mod auth;
pub mod portal;
pub mod rules;
pub mod store;
