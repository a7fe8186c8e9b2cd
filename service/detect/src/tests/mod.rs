//! Behaviour tests through `Detector::process`, one module per family of events.

mod lifecycle;
mod motion;
mod places;
mod power;
mod signals;
mod thresholds;
