//! Configuration: flags, each also read from an environment variable.

use clap::Parser;
use std::net::SocketAddr;
use uuid::Uuid;

#[derive(Parser, Debug, Clone)]
#[command(
    name = "asset-alerting-service",
    version,
    about = "The Asset Alerting Service (HTTP JSON API over SQLite)"
)]
pub struct Config {
    /// Address to listen on.
    #[arg(long, env = "ASSET_ALERTING_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Database: `sqlite://path/to/file.db` (created if missing).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "sqlite://asset-alerting.db"
    )]
    pub database_url: String,
    /// Base URL the service is reached at from outside, for portal links (default: http://LISTEN).
    #[arg(long, env = "PUBLIC_BASE_URL")]
    pub public_base_url: Option<String>,
    /// Lifetime of access tokens, in seconds.
    #[arg(long, env = "TOKEN_LIFETIME_SECS", default_value_t = 3600)]
    pub token_lifetime_secs: i64,
    /// Key that signs access tokens and portal links (default: generated on first start and kept in the database).
    #[arg(long, env = "SIGNING_KEY", hide_env_values = true)]
    pub signing_key: Option<String>,
    /// Id of the root account created on first start (default: random).
    #[arg(long, env = "ROOT_ACCOUNT_ID")]
    pub root_account_id: Option<Uuid>,
    /// Client secret of the root account created on first start (default: random, printed once).
    #[arg(long, env = "ROOT_CLIENT_SECRET", hide_env_values = true)]
    pub root_client_secret: Option<String>,
}

impl Config {
    /// Defaults for tests and embedding: a database path, everything else as on the command line.
    pub fn for_database(database_url: impl Into<String>) -> Config {
        let mut config = Config::parse_from(["asset-alerting-service"]);
        config.database_url = database_url.into();
        config
    }

    pub fn public_base_url(&self) -> String {
        self.public_base_url
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.listen))
    }
}
