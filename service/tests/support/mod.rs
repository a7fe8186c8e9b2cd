//! A real service for tests: its router on a 127.0.0.1 port, its data in a SQLite file in a
//! temporary folder or, with `TEST_DATABASE=postgres`, in a database of a throwaway PostgreSQL
//! cluster (see [`postgres`]), and generated clients that talk to it.

#![allow(dead_code, reason = "each test binary uses part of the harness")]

pub mod devtools;
pub mod drive;
pub mod postgres;
pub mod process;

use asset_alerting_client::Client;
use asset_alerting_client::models::*;
use asset_alerting_service::app::App;
use asset_alerting_service::config::Config;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use tokio::sync::oneshot;
use uuid::Uuid;

pub const ROOT_SECRET: &str = "root-secret-for-tests";

/// Status and error code of a documented error; panics on anything else.
pub fn code_of<T, E>(result: Result<T, asset_alerting_client::Error<E>>) -> (u16, i64)
where
    T: std::fmt::Debug,
    E: std::fmt::Debug + std::ops::Deref<Target = ErrorBody>,
{
    match result {
        Err(asset_alerting_client::Error::Api { status, body }) => (status.as_u16(), body.code),
        other => panic!("expected a documented error, got {other:?}"),
    }
}

pub struct TestService {
    pub base: String,
    pub root: Uuid,
    /// The trackers' listeners, when the config asked for them.
    pub teltonika: Option<std::net::SocketAddr>,
    pub osmand: Option<std::net::SocketAddr>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
}

/// The backends a test can run on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Defines each named `async fn name(backend: Backend)` as two tests, `sqlite::name` and
/// `postgres::name`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::support::Backend::Sqlite).await
            })*
        }
        mod postgres {
            $(#[tokio::test]
            async fn $name() {
                super::$name($crate::support::Backend::Postgres).await
            })*
        }
    };
}

/// The service tests' backend: PostgreSQL when `TEST_DATABASE=postgres` and a cluster can be
/// started (else SQLite, after saying why), SQLite otherwise.
pub fn service_backend() -> Backend {
    if std::env::var("TEST_DATABASE").is_ok_and(|v| v == "postgres")
        && postgres::cluster().is_some()
    {
        Backend::Postgres
    } else {
        Backend::Sqlite
    }
}

/// The database of the data that would live in the SQLite file `db`: that file, or on
/// PostgreSQL one database per path (created on first use, so a restarted service finds its
/// data again).
pub fn database_url(db: &Path) -> String {
    if service_backend() == Backend::Sqlite {
        return format!("sqlite://{}", db.display());
    }
    static DATABASES: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);
    let mut databases = DATABASES.lock().unwrap();
    databases
        .get_or_insert_with(HashMap::new)
        .entry(db.to_owned())
        .or_insert_with(|| postgres::database().expect("service_backend checked the cluster"))
        .clone()
}

/// Everything the database of `db` holds: the SQLite file, or a dump of the PostgreSQL database.
pub fn database_contents(db: &Path) -> Vec<u8> {
    match service_backend() {
        Backend::Sqlite => std::fs::read(db).unwrap(),
        Backend::Postgres => postgres::cluster()
            .expect("service_backend checked the cluster")
            .dump(&database_url(db)),
    }
}

pub fn config(dir: &tempfile::TempDir, root: Uuid) -> Config {
    let db = dir.path().join("service.db");
    let mut config = Config::for_database(database_url(&db));
    // Beside the data, as for SQLite (for PostgreSQL the default is the working directory).
    config.key_file = Some(dir.path().join("service.db.keys"));
    config.root_account_id = Some(root);
    config.root_client_secret = Some(ROOT_SECRET.to_owned());
    config
}

/// A service with a new root account and its own temporary folder (dropped with it).
pub async fn started() -> (tempfile::TempDir, TestService) {
    let dir = tempfile::tempdir().unwrap();
    let service = TestService::start(config(&dir, Uuid::new_v4())).await;
    (dir, service)
}

impl TestService {
    pub async fn start(config: Config) -> TestService {
        let root = config.root_account_id.expect("tests name the root account");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let mut config = config;
        config.public_base_url = Some(base.clone());
        let app = App::build(&config).await.unwrap();
        let teltonika = app.trackers.teltonika_address();
        let osmand = app.trackers.osmand_address();
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            app.serve(listener, async move {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        TestService {
            base,
            root,
            teltonika,
            osmand,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stops gracefully: requests in flight finish, the database is closed.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap();
        }
    }

    pub fn client(&self, id: Uuid, secret: &str) -> Client {
        Client::builder(&self.base)
            .client_credentials(id.to_string(), secret)
            .build()
            .unwrap()
    }

    pub fn root_client(&self) -> Client {
        self.client(self.root, ROOT_SECRET)
    }

    pub fn anonymous(&self) -> Client {
        Client::new(&self.base).unwrap()
    }

    pub fn with_token(&self, token: &str) -> Client {
        Client::builder(&self.base)
            .bearer_token(token)
            .build()
            .unwrap()
    }
}

/// A child account of `parent`, with a client acting for it.
pub async fn child(
    service: &TestService,
    parent_client: &Client,
    parent: Uuid,
    name: &str,
) -> (Uuid, Client) {
    let created = parent_client
        .create_account(
            parent,
            CreateAccountRequest {
                name: name.to_owned(),
                friendly_name: Some(format!("{name} Ltd")),
                culture: Some("en-GB".to_owned()),
                technical_email_address: Some(format!("ops@{name}.example")),
                callback_uri: Some(format!("https://{name}.example/hook")),
            },
        )
        .send()
        .await
        .unwrap();
    (
        created.id,
        service.client(created.id, &created.client_secret),
    )
}

pub fn asset_input(external_id: &str) -> AssetInput {
    AssetInput {
        id: None,
        account_id: None,
        is_deleted: None,
        external_id: external_id.to_owned(),
        device_id: None,
        name: format!("Vehicle {external_id}"),
        tier: AssetTier::Basic,
        disabled_events: Some(BTreeMap::new()),
        telemetry_rules: None,
    }
}

pub fn square(lon: f64, lat: f64) -> GeoJsonPolygon {
    GeoJsonPolygon {
        r#type: GeoJsonPolygonType::Polygon,
        coordinates: vec![vec![
            vec![lon, lat],
            vec![lon + 0.1, lat],
            vec![lon + 0.1, lat + 0.1],
            vec![lon, lat],
        ]],
    }
}

pub fn geofence_input(external_id: &str, name: &str) -> GeofenceInput {
    GeofenceInput {
        id: None,
        account_id: None,
        external_id: external_id.to_owned(),
        name: name.to_owned(),
        polygon: square(13.0, 52.0),
    }
}

/// A rule of `event_type` notifying `recipient` through `channel`, every day, everywhere.
pub fn plain_rule(
    event_type: EventType,
    order: i64,
    recipient: Recipient,
    channel: Channel,
) -> AlertRuleInput {
    AlertRuleInput {
        id: None,
        account_id: None,
        asset_id: None,
        event_type,
        order,
        recipient,
        channel,
        is_disabled: false,
        days_of_week: vec![],
        time_of_day: None,
        dates: None,
        inside_geofences: vec![],
        outside_geofences: vec![],
    }
}

/// An English-speaking recipient in Berlin with a phone number.
pub fn berlin_recipient() -> Recipient {
    Recipient {
        culture: "en-GB".to_owned(),
        time_zone: "Europe/Berlin".to_owned(),
        phone_number: Some("+4915112345678".to_owned()),
        description: None,
    }
}

pub fn sms(interactive: bool) -> Channel {
    Channel {
        r#type: ChannelType::Sms,
        call: None,
        sms: Some(SmsChannel {
            is_interactive: interactive,
        }),
        telegram: None,
        email: None,
    }
}

pub fn rule_input(event_type: EventType, order: i64, inside: Vec<Uuid>) -> AlertRuleInput {
    AlertRuleInput {
        id: None,
        account_id: None,
        asset_id: None,
        event_type,
        order,
        recipient: Recipient {
            culture: "de-DE".to_owned(),
            time_zone: "Europe/Berlin".to_owned(),
            phone_number: Some("+4915112345678".to_owned()),
            description: Some("Dispatch".to_owned()),
        },
        channel: Channel {
            r#type: ChannelType::Sms,
            call: None,
            sms: Some(SmsChannel {
                is_interactive: false,
            }),
            telegram: None,
            email: None,
        },
        is_disabled: false,
        days_of_week: vec![DayOfWeek::Monday],
        time_of_day: Some(TimeOfDay {
            from: "22:00".to_owned(),
            to: "06:00".to_owned(),
        }),
        dates: None,
        inside_geofences: inside,
        outside_geofences: vec![],
    }
}

impl TestService {
    /// A client that posts telemetry with a fresh ingestion token of `account`.
    pub async fn ingestion_client(&self, client: &Client, account: Uuid) -> Client {
        let token = client
            .get_ingestion_token(account)
            .send()
            .await
            .unwrap()
            .token;
        self.with_token(&token)
    }
}

/// A telemetry point with a timestamp and nothing else.
pub fn point_of(
    asset_id: Option<Uuid>,
    external_id: Option<&str>,
    timestamp: chrono::DateTime<chrono::Utc>,
) -> TelemetryPoint {
    TelemetryPoint {
        asset_id,
        external_id: external_id.map(str::to_owned),
        timestamp,
        latitude: None,
        longitude: None,
        speed: None,
        heading: None,
        altitude: None,
        satellites: None,
        ignition: None,
        input_voltage: None,
        battery_voltage: None,
        battery_percentage: None,
        fuel_level: None,
        ad_blue_level: None,
        temperature: None,
        pressure: None,
        engine_speed: None,
        signals: None,
    }
}

pub fn no_signals() -> DeviceSignals {
    DeviceSignals {
        alarm: None,
        tampering: None,
        jamming: None,
        accident: None,
        hard_cornering: None,
        lockdown_violation: None,
        left_behind: None,
        power_disconnected: None,
    }
}

pub fn empty_rules() -> TelemetryRules {
    TelemetryRules {
        input_voltage_low_threshold: None,
        battery_voltage_low_threshold: None,
        battery_percentage_low_threshold: None,
        speed_limit: None,
        fuel_level_low_threshold: None,
        ad_blue_level_low_threshold: None,
        temperature_low_threshold: None,
        temperature_high_threshold: None,
        pressure_low_threshold: None,
        pressure_high_threshold: None,
        engine_speed_limit: None,
    }
}

/// How many events of `event_type` `asset` has, page by page.
pub async fn count_events(
    client: &Client,
    account: Uuid,
    asset: Uuid,
    event_type: EventType,
) -> usize {
    let mut events = 0;
    loop {
        let page = client
            .list_events(account)
            .asset_id(asset)
            .event_type(event_type)
            .skip(events as i32)
            .take(500)
            .send()
            .await
            .unwrap();
        events += page.len();
        if page.len() < 500 {
            return events;
        }
    }
}
