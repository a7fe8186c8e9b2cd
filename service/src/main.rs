//! `asset-alerting-service`: starts the service on 127.0.0.1:8080 with an embedded SQLite database.

use asset_alerting_service::{app, config::Config, logging};
use clap::Parser;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    #[cfg(target_env = "gnu")]
    large_blocks_go_back_to_the_os();
    let config = Config::parse();
    logging::init(&config.log_format);
    if config.rotate_signing_key {
        let kid = app::rotate_signing_key(&config)?;
        println!("New token signing key {kid}; restart the service to use it.");
        return Ok(());
    }
    let app = app::App::build(&config).await?;
    if let Some(root) = &app.created_root {
        // Shown once: only the hash of the secret is stored.
        println!(
            "Created the root account. Keep these credentials; the secret is not shown again:"
        );
        println!("  client_id:     {}", root.id);
        println!("  client_secret: {}", root.secret);
    }
    let listener = tokio::net::TcpListener::bind(config.listen).await?;
    tracing::info!(address = %listener.local_addr()?, database = %asset_alerting_service::store::redacted(&config.database_url), "listening");
    app.serve(listener, shutdown_signal()).await?;
    tracing::info!("stopped");
    Ok(())
}

/// argon2 takes ~19 MiB per secret check. Once such a block is freed, glibc raises its mmap
/// threshold and later blocks stay in each thread's arena: 25 wrong secrets left ~240 MB resident.
/// A fixed threshold keeps large blocks mapped on their own and unmapped when freed.
#[cfg(target_env = "gnu")]
fn large_blocks_go_back_to_the_os() {
    // SAFETY: mallopt only tunes the allocator; any thread may call it at any time.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
