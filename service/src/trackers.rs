//! Trackers that report directly, without a gateway: Teltonika devices over TCP and OsmAnd
//! clients over HTTP (the protocols are in the `asset-alerting-trackers` crate). Their reports
//! enter the same pipeline as `POST /v1/telemetry`, through [`Service::ingest_telemetry`], so
//! the cutoff, duplicates, snoozes, deleted assets and per-point rejection are the same rules.

use crate::api::Service;
use crate::config::Config;
use crate::store::{Database, Store};
use anyhow::Context;
use asset_alerting_models::{
    DeviceSignals, PointResultReason, PointResultStatus, TelemetryBatch, TelemetryPoint,
};
use asset_alerting_trackers::teltonika::{self, Limits, TlsAcceptor};
use asset_alerting_trackers::{Ingest, Rejection, Report, Stored, osmand};
use chrono::Utc;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Points per call of the pipeline: the most a telemetry batch may hold.
const BATCH: usize = 1000;

/// The pipeline as both listeners see it: a device id names the live asset that has it.
pub struct TrackerIngest {
    service: Arc<Service<Database>>,
}

impl TrackerIngest {
    pub fn new(service: Arc<Service<Database>>) -> TrackerIngest {
        TrackerIngest { service }
    }
}

impl Ingest for TrackerIngest {
    async fn knows(&self, device_id: &str) -> bool {
        match self.service.store().asset_of_device(device_id).await {
            Ok(asset) => asset.is_some(),
            Err(e) => {
                // The device is refused and tries again later, which is what it would do anyway.
                tracing::warn!(device_id, error = %e, "trackers: device lookup failed");
                false
            }
        }
    }

    async fn store(&self, device_id: &str, reports: Vec<Report>) -> Result<Stored, String> {
        let asset = self
            .service
            .store()
            .asset_of_device(device_id)
            .await
            .map_err(|e| e.to_string())?
            // Deleted, or its deviceId changed, since the device connected.
            .ok_or_else(|| format!("no live asset has deviceId `{device_id}`"))?;
        let mut stored = Stored::default();
        for chunk in reports.chunks(BATCH) {
            let batch = TelemetryBatch {
                points: chunk.iter().map(|r| point(asset.id, r)).collect(),
            };
            let result = self
                .service
                .ingest_telemetry(asset.account_id, batch)
                .await
                .map_err(|e| e.body().message)?;
            for r in result.results {
                match r.status {
                    PointResultStatus::Accepted => stored.accepted += 1,
                    PointResultStatus::Duplicate => stored.duplicates += 1,
                    PointResultStatus::Rejected => stored.rejected.push(Rejection {
                        invalid: r.reason == Some(PointResultReason::InvalidValue),
                        message: r.message.unwrap_or_default(),
                    }),
                }
            }
        }
        Ok(stored)
    }
}

/// A report as the telemetry point `POST /v1/telemetry` would take. Accuracy and the movement
/// sensor have no reading in a point (movement is detected from speed).
fn point(asset: uuid::Uuid, r: &Report) -> TelemetryPoint {
    let s = &r.signals;
    let signals = DeviceSignals {
        alarm: s.alarm,
        tampering: None,
        jamming: s.jamming,
        accident: s.accident,
        hard_cornering: s.hard_cornering,
        lockdown_violation: None,
        left_behind: None,
        power_disconnected: s.power_disconnected,
    };
    let any_signal = [
        s.alarm,
        s.jamming,
        s.accident,
        s.hard_cornering,
        s.power_disconnected,
    ]
    .iter()
    .any(Option::is_some);
    TelemetryPoint {
        asset_id: Some(asset),
        external_id: None,
        timestamp: r.timestamp.unwrap_or_else(Utc::now),
        latitude: r.latitude,
        longitude: r.longitude,
        speed: r.speed,
        heading: r.heading,
        altitude: r.altitude,
        satellites: r.satellites.map(i32::from),
        ignition: r.ignition,
        input_voltage: r.input_voltage,
        battery_voltage: r.battery_voltage,
        battery_percentage: r.battery_percentage,
        fuel_level: None,
        ad_blue_level: None,
        temperature: None,
        pressure: None,
        engine_speed: None,
        signals: any_signal.then_some(signals),
    }
}

/// The listeners' sockets, bound before the service starts (so a port taken, or a certificate
/// that does not load, fails the start).
#[derive(Default)]
pub struct TrackerSockets {
    pub teltonika: Option<TcpListener>,
    pub teltonika_tls: Option<TlsAcceptor>,
    pub osmand: Option<TcpListener>,
}

impl TrackerSockets {
    pub async fn bind(config: &Config) -> anyhow::Result<TrackerSockets> {
        let teltonika_tls = match (&config.teltonika_tls_cert, &config.teltonika_tls_key) {
            (Some(cert), Some(key)) => Some(tls_acceptor(cert, key)?),
            _ => None,
        };
        Ok(TrackerSockets {
            teltonika: match config.teltonika_listen {
                Some(address) => Some(TcpListener::bind(address).await?),
                None => None,
            },
            teltonika_tls,
            osmand: match config.osmand_listen {
                Some(address) => Some(TcpListener::bind(address).await?),
                None => None,
            },
        })
    }

    pub fn teltonika_address(&self) -> Option<SocketAddr> {
        self.teltonika.as_ref().and_then(|l| l.local_addr().ok())
    }

    pub fn osmand_address(&self) -> Option<SocketAddr> {
        self.osmand.as_ref().and_then(|l| l.local_addr().ok())
    }
}

/// The running listeners.
pub struct Trackers {
    teltonika: Option<teltonika::Listener>,
    osmand: Option<(watch::Sender<bool>, JoinHandle<()>)>,
}

impl Trackers {
    pub fn start(sockets: TrackerSockets, service: Arc<Service<Database>>) -> Trackers {
        let ingest = Arc::new(TrackerIngest::new(service));
        let tls = sockets.teltonika_tls;
        let teltonika = sockets.teltonika.map(|socket| {
            tracing::info!(address = ?socket.local_addr().ok(), tls = tls.is_some(), "teltonika: listening");
            let listener =
                teltonika::Listener::start_with(socket, ingest.clone(), Limits::default(), tls);
            crate::monitoring::teltonika_stats(listener.stats.clone());
            listener
        });
        let osmand = sockets.osmand.map(|socket| {
            tracing::info!(address = ?socket.local_addr().ok(), "osmand: listening");
            let (stop, mut stopped) = watch::channel(false);
            let ingest = ingest.clone();
            let task = tokio::spawn(async move {
                let served = osmand::serve(socket, ingest, async move {
                    let _ = stopped.wait_for(|stop| *stop).await;
                })
                .await;
                if let Err(e) = served {
                    tracing::error!(error = %e, "osmand: the listener failed");
                }
            });
            (stop, task)
        });
        Trackers { teltonika, osmand }
    }

    /// Stops accepting; what devices sent and the store took is acknowledged before this returns.
    pub async fn stop(self) {
        if let Some(listener) = self.teltonika {
            listener.shutdown().await;
        }
        if let Some((stop, task)) = self.osmand {
            let _ = stop.send(true);
            let _ = task.await;
        }
    }
}

/// A TLS acceptor for the certificate chain and key in the PEM files `cert` and `key`.
fn tls_acceptor(cert: &std::path::Path, key: &std::path::Path) -> anyhow::Result<TlsAcceptor> {
    use tokio_rustls::rustls::{self, pki_types::pem::PemObject};
    let chain = rustls::pki_types::CertificateDer::pem_file_iter(cert)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .with_context(|| format!("reading the certificates in {}", cert.display()))?;
    let key = rustls::pki_types::PrivateKeyDer::from_pem_file(key)
        .with_context(|| format!("reading the private key in {}", key.display()))?;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(chain, key)
        .context("the Teltonika TLS certificate and key do not match")?;
    Ok(TlsAcceptor::from(Arc::new(config)))
}
