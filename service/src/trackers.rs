//! Trackers that report directly, without a gateway: Teltonika devices over TCP and OsmAnd
//! clients over HTTP (the protocols are in the `asset-alerting-trackers` crate). Their reports
//! enter the same pipeline as `POST /v1/telemetry`, through [`Service::ingest_telemetry`], so
//! the cutoff, duplicates, snoozes, deleted assets and per-point rejection are the same rules.

use crate::api::Service;
use crate::config::Config;
use crate::store::{Database, Store};
use anyhow::Context;
use asset_alerting_models::{
    Asset, DeviceSignals, PointResult, PointResultReason, PointResultStatus, TelemetryBatch,
    TelemetryPoint,
};
use asset_alerting_trackers::teltonika::{self, Limits, TlsAcceptor};
use asset_alerting_trackers::{Ingest, Rejection, Report, Signals, Stored, osmand};
use chrono::Utc;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::{Mutex, mpsc, oneshot, watch};
use tokio::task::JoinHandle;
use uuid::Uuid;

/// Points one call of the pipeline takes at most, from reports of many devices. A call costs
/// mostly per call (reading the account's geofences and receivers, one commit), so devices that
/// report at the same time are stored together, as SQLite's group commit does with batches.
const MAX_POINTS: usize = 2000;

/// Calls of the pipeline in flight at once: while they run, the next reports gather.
const WORKERS: usize = 4;

/// The pipeline as both listeners see it: a device id names the live asset that has it.
pub struct TrackerIngest {
    service: Arc<Service<Database>>,
    queue: mpsc::Sender<Pending>,
}

/// Reports of one device waiting to be stored, and where their outcome goes.
struct Pending {
    device_id: String,
    reports: Vec<Report>,
    done: oneshot::Sender<Result<Stored, String>>,
}

type Queue = Arc<Mutex<mpsc::Receiver<Pending>>>;

impl TrackerIngest {
    /// Starts the workers that store reports; they stop once the ingest is dropped.
    pub fn start(service: Arc<Service<Database>>) -> TrackerIngest {
        let (queue, waiting) = mpsc::channel(4 * MAX_POINTS);
        let waiting: Queue = Arc::new(Mutex::new(waiting));
        for _ in 0..WORKERS {
            tokio::spawn(worker(service.clone(), waiting.clone()));
        }
        TrackerIngest { service, queue }
    }
}

impl Ingest for TrackerIngest {
    async fn knows(&self, device_id: &str) -> bool {
        match self
            .service
            .store()
            .assets_of_devices(&[device_id.to_owned()])
            .await
        {
            Ok(assets) => !assets.is_empty(),
            Err(e) => {
                // The device is refused and tries again later, which is what it would do anyway.
                tracing::warn!(device_id, error = %e, "trackers: device lookup failed");
                false
            }
        }
    }

    async fn store(&self, device_id: &str, reports: Vec<Report>) -> Result<Stored, String> {
        let (done, outcome) = oneshot::channel();
        let pending = Pending {
            device_id: device_id.to_owned(),
            reports,
            done,
        };
        let stopped = || "the service is stopping".to_owned();
        self.queue.send(pending).await.map_err(|_| stopped())?;
        outcome.await.map_err(|_| stopped())?
    }
}

/// Takes whatever reports are waiting (up to [`MAX_POINTS`]) and stores them together.
async fn worker(service: Arc<Service<Database>>, waiting: Queue) {
    loop {
        let taken = {
            let mut waiting = waiting.lock().await;
            let Some(first) = waiting.recv().await else {
                return;
            };
            let mut points = first.reports.len();
            let mut taken = vec![first];
            while points < MAX_POINTS {
                let Ok(next) = waiting.try_recv() else { break };
                points += next.reports.len();
                taken.push(next);
            }
            taken
        };
        store_together(&service, taken).await;
    }
}

/// Stores the reports of several devices, one call of the pipeline per account, and answers
/// each device with the outcome of its own reports.
async fn store_together(service: &Service<Database>, taken: Vec<Pending>) {
    let mut ids: Vec<String> = taken.iter().map(|p| p.device_id.clone()).collect();
    ids.sort_unstable();
    ids.dedup();
    let answers = match service.store().assets_of_devices(&ids).await {
        Ok(assets) => ingest(service, &taken, &assets).await,
        Err(e) => vec![Err(e.to_string()); taken.len()],
    };
    for (pending, answer) in taken.into_iter().zip(answers) {
        let _ = pending.done.send(answer);
    }
}

/// One account's share of the reports taken together.
#[derive(Default)]
struct AccountPoints {
    points: Vec<TelemetryPoint>,
    /// Whose the points are, in order: the index of the pending reports, and how many.
    owners: Vec<(usize, usize)>,
}

/// The outcome of each pending device's reports, in order.
async fn ingest(
    service: &Service<Database>,
    taken: &[Pending],
    assets: &[Asset],
) -> Vec<Result<Stored, String>> {
    let by_device: HashMap<&str, &Asset> = assets
        .iter()
        .filter_map(|a| Some((a.device_id.as_deref()?, a)))
        .collect();
    let mut answers = vec![Ok(Stored::default()); taken.len()];
    let mut accounts: HashMap<Uuid, AccountPoints> = HashMap::new();
    for (i, pending) in taken.iter().enumerate() {
        let Some(asset) = by_device.get(pending.device_id.as_str()) else {
            // Deleted, or its deviceId changed, since the device connected.
            answers[i] = Err(format!(
                "no live asset has deviceId `{}`",
                pending.device_id
            ));
            continue;
        };
        let share = accounts.entry(asset.account_id).or_default();
        share.owners.push((i, pending.reports.len()));
        share
            .points
            .extend(pending.reports.iter().map(|r| point(asset.id, r)));
    }
    for (account, share) in accounts {
        let batch = TelemetryBatch {
            points: share.points,
        };
        match service.ingest_telemetry(account, batch).await {
            Ok(result) => {
                let mut results = result.results.into_iter();
                for (i, n) in share.owners {
                    answers[i] = Ok(stored(results.by_ref().take(n)));
                }
            }
            Err(e) => {
                for (i, _) in share.owners {
                    answers[i] = Err(e.body().message);
                }
            }
        }
    }
    answers
}

/// The outcome of one device's reports, from their results in the pipeline's answer.
fn stored(results: impl Iterator<Item = PointResult>) -> Stored {
    let mut stored = Stored::default();
    for r in results {
        match r.status {
            PointResultStatus::Accepted => stored.accepted += 1,
            PointResultStatus::Duplicate => stored.duplicates += 1,
            PointResultStatus::Rejected => stored.rejected.push(Rejection {
                invalid: r.reason == Some(PointResultReason::InvalidValue),
                message: r.message.unwrap_or_default(),
            }),
        }
    }
    stored
}

/// A report as the telemetry point `POST /v1/telemetry` would take. Accuracy and the movement
/// sensor have no reading in a point (movement is detected from speed).
fn point(asset: Uuid, r: &Report) -> TelemetryPoint {
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
    TelemetryPoint {
        asset_id: Some(asset),
        external_id: None,
        timestamp: r.timestamp.unwrap_or_else(Utc::now),
        latitude: r.latitude,
        longitude: r.longitude,
        speed: r.speed,
        heading: r.heading,
        altitude: r.altitude,
        satellites: r.satellites.map(i64::from),
        ignition: r.ignition,
        input_voltage: r.input_voltage,
        battery_voltage: r.battery_voltage,
        battery_percentage: r.battery_percentage,
        fuel_level: None,
        ad_blue_level: None,
        temperature: None,
        pressure: None,
        engine_speed: None,
        signals: (*s != Signals::default()).then_some(signals),
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
        let ingest = Arc::new(TrackerIngest::start(service));
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
