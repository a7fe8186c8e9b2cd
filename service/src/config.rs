//! Configuration: flags, each also read from an environment variable.

use clap::Parser;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use uuid::Uuid;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "asset-alerting-service",
    version,
    about = "The Asset Alerting Service (HTTP JSON API over SQLite or PostgreSQL)"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "ASSET_ALERTING_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Database: `sqlite://path/to/file.db` (created if missing) or
    /// `postgres://user:password@host:port/database` (shared by several instances).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://asset-alerting.db"
    )]
    pub database_url: String,
    /// PostgreSQL: connections this instance keeps at most (all instances together must stay
    /// under the server's max_connections).
    #[arg(long, env = "DATABASE_MAX_CONNECTIONS", default_value_t = 10)]
    pub database_max_connections: u32,
    /// PostgreSQL: the server cancels a statement that runs longer, in milliseconds (0: no limit).
    #[arg(long, env = "DATABASE_STATEMENT_TIMEOUT_MS", default_value_t = 30_000)]
    pub database_statement_timeout_ms: u64,
    /// Base URL the service is reached at from outside, for portal links (default: http://LISTEN).
    #[arg(long, env = "PUBLIC_BASE_URL")]
    pub public_base_url: Option<String>,
    /// Lifetime of access tokens, in seconds.
    #[arg(long, env = "TOKEN_LIFETIME_SECS", default_value_t = 3600)]
    pub token_lifetime_secs: i64,
    /// Key that signs access tokens, links and webhooks, instead of a key file.
    #[arg(long, env = "SIGNING_KEY", hide_env_values = true)]
    pub signing_key: Option<String>,
    /// The signing key before the current --signing-key: it keeps verifying the tokens it
    /// signed for one token lifetime after the start.
    #[arg(long, env = "PREVIOUS_SIGNING_KEY", hide_env_values = true)]
    pub previous_signing_key: Option<String>,
    /// Key file (mode 0600), created on first start (default: beside the SQLite file, as
    /// `<database file>.keys`). Ignored when --signing-key is set.
    #[arg(long, env = "KEY_FILE")]
    pub key_file: Option<std::path::PathBuf>,
    /// Put a new token signing key first in the key file, keep the previous one for one token
    /// lifetime, and exit. Restart the service to use it.
    #[arg(long)]
    pub rotate_signing_key: bool,
    /// Id of the root account created on first start (default: random).
    #[arg(long, env = "ROOT_ACCOUNT_ID")]
    pub root_account_id: Option<Uuid>,
    /// Client secret of the root account created on first start (default: random, printed once).
    #[arg(long, env = "ROOT_CLIENT_SECRET", hide_env_values = true)]
    pub root_client_secret: Option<String>,

    /// SMTP server for the email channel (email notifications are `skipped` without one).
    #[arg(long, env = "SMTP_HOST", help_heading = "Delivery channels")]
    pub smtp_host: Option<String>,
    /// SMTP port (default: 25, 587 or 465 by --smtp-tls).
    #[arg(long, env = "SMTP_PORT", help_heading = "Delivery channels")]
    pub smtp_port: Option<u16>,
    /// SMTP transport security: starttls (required), tls (implicit, SMTPS) or none.
    #[arg(long, env = "SMTP_TLS", default_value = "starttls", value_parser = ["starttls", "tls", "none"], help_heading = "Delivery channels")]
    pub smtp_tls: String,
    /// SMTP user name (with --smtp-password).
    #[arg(long, env = "SMTP_USERNAME", help_heading = "Delivery channels")]
    pub smtp_username: Option<String>,
    #[arg(
        long,
        env = "SMTP_PASSWORD",
        hide_env_values = true,
        help_heading = "Delivery channels"
    )]
    pub smtp_password: Option<String>,
    /// Sender address of notification emails.
    #[arg(
        long,
        env = "SMTP_FROM",
        default_value = "Asset Alerting <alerts@localhost>",
        help_heading = "Delivery channels"
    )]
    pub smtp_from: String,
    /// Telegram bot token for the telegram channel.
    #[arg(
        long,
        env = "TELEGRAM_BOT_TOKEN",
        hide_env_values = true,
        help_heading = "Delivery channels"
    )]
    pub telegram_bot_token: Option<String>,
    /// Base URL of the Telegram Bot API.
    #[arg(
        long,
        env = "TELEGRAM_API_URL",
        default_value = "https://api.telegram.org",
        help_heading = "Delivery channels"
    )]
    pub telegram_api_url: String,
    /// Twilio account SID for the sms and call channels (with the auth token and a sender number).
    #[arg(long, env = "TWILIO_ACCOUNT_SID", help_heading = "Delivery channels")]
    pub twilio_account_sid: Option<String>,
    #[arg(
        long,
        env = "TWILIO_AUTH_TOKEN",
        hide_env_values = true,
        help_heading = "Delivery channels"
    )]
    pub twilio_auth_token: Option<String>,
    /// Sending phone number (E.164) of SMS and calls.
    #[arg(long, env = "TWILIO_FROM", help_heading = "Delivery channels")]
    pub twilio_from: Option<String>,
    /// Base URL of the Twilio-compatible REST API.
    #[arg(
        long,
        env = "TWILIO_API_URL",
        default_value = "https://api.twilio.com",
        help_heading = "Delivery channels"
    )]
    pub twilio_api_url: String,
    /// Accept http:// callbackUris (default: https only).
    #[arg(long, env = "ALLOW_HTTP_CALLBACKS", help_heading = "Delivery channels")]
    pub allow_http_callbacks: bool,
    /// Accept callbackUris on loopback and private addresses (default: public addresses only).
    #[arg(
        long,
        env = "ALLOW_PRIVATE_CALLBACKS",
        help_heading = "Delivery channels"
    )]
    pub allow_private_callbacks: bool,

    /// Seconds a live event stream's lease lasts (PostgreSQL): a stream of an instance that died
    /// stops counting against its account's limit at the latest this long after the instance's
    /// last renewal (renewed every third of it).
    #[arg(
        long,
        env = "STREAM_LEASE_SECS",
        default_value_t = 30,
        help_heading = "Live events"
    )]
    pub stream_lease_secs: u64,
    /// Seconds a dispatcher holds a claimed notification before another may retry it.
    #[arg(
        long,
        env = "DISPATCH_LEASE_SECS",
        default_value_t = 60,
        help_heading = "Dispatch"
    )]
    pub dispatch_lease_secs: i64,
    /// First retry delay in milliseconds (doubled per attempt up to 30 minutes).
    #[arg(
        long,
        env = "RETRY_BASE_MS",
        default_value_t = 10_000,
        help_heading = "Dispatch"
    )]
    pub retry_base_ms: i64,
    /// Messages one recipient may get per window (a minute) before the rest are sent as a digest.
    #[arg(
        long,
        env = "RATE_LIMIT_PER_MINUTE",
        default_value_t = 5,
        help_heading = "Dispatch"
    )]
    pub rate_limit_per_minute: u32,
    /// The window of the rate limit, in seconds (tests shorten it).
    #[arg(
        long,
        env = "RATE_LIMIT_WINDOW_SECS",
        default_value_t = 60,
        hide = true
    )]
    pub rate_limit_window_secs: i64,

    /// Token requests per minute from one source address (bursts up to the same number); more
    /// are answered 429 before any secret is checked.
    #[arg(
        long,
        env = "TOKEN_RATE_PER_ADDRESS",
        default_value = "60",
        help_heading = "Operations"
    )]
    pub token_rate_per_address: NonZeroU32,
    /// Token requests per minute naming one client id (bursts up to the same number).
    #[arg(
        long,
        env = "TOKEN_RATE_PER_CLIENT",
        default_value = "20",
        help_heading = "Operations"
    )]
    pub token_rate_per_client: NonZeroU32,
    /// Token requests that may wait for a secret check (one runs per two cores); more are answered 429.
    #[arg(
        long,
        env = "TOKEN_QUEUE",
        default_value_t = 16,
        help_heading = "Operations"
    )]
    pub token_queue: usize,
    /// Listen for Teltonika trackers (AVL protocol over TCP; Traccar uses port 5027), e.g.
    /// `0.0.0.0:5027`. Off when not set.
    #[arg(long, env = "TELTONIKA_LISTEN", help_heading = "Trackers")]
    pub teltonika_listen: Option<SocketAddr>,
    /// TLS on the Teltonika listener: the server's certificate chain (PEM). Needs
    /// --teltonika-tls-key; without both the listener speaks plain TCP.
    #[arg(
        long,
        env = "TELTONIKA_TLS_CERT",
        help_heading = "Trackers",
        requires = "teltonika_tls_key"
    )]
    pub teltonika_tls_cert: Option<std::path::PathBuf>,
    /// The private key of --teltonika-tls-cert (PEM).
    #[arg(
        long,
        env = "TELTONIKA_TLS_KEY",
        help_heading = "Trackers",
        requires = "teltonika_tls_cert"
    )]
    pub teltonika_tls_key: Option<std::path::PathBuf>,
    /// Listen for OsmAnd reports (HTTP; the Traccar Client app; Traccar uses port 5055), e.g.
    /// `0.0.0.0:5055`. Off when not set.
    #[arg(long, env = "OSMAND_LISTEN", help_heading = "Trackers")]
    pub osmand_listen: Option<SocketAddr>,
    /// Log format on stderr: text, or json (one object per line).
    #[arg(long, env = "LOG_FORMAT", default_value = "text", value_parser = ["text", "json"], help_heading = "Operations")]
    pub log_format: String,
}

impl Config {
    /// Defaults for tests and embedding: a database path, everything else as on the command line.
    pub fn for_database(database_url: impl Into<String>) -> Config {
        let mut config = Config::parse_from(["asset-alerting-service"]);
        config.database_url = database_url.into();
        config
    }

    /// The key file in use, if keys are not configured directly.
    pub fn key_file(&self) -> Option<std::path::PathBuf> {
        if self.signing_key.is_some() {
            return None;
        }
        self.key_file
            .clone()
            .or_else(|| crate::keys::default_key_file(&self.database_url))
    }

    pub fn public_base_url(&self) -> String {
        self.public_base_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
    }
}
