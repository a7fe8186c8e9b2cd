//! The generated client's overhead: `get_asset` through `asset_alerting_client` against the same
//! request built by hand with reqwest, both against the generated server (in-memory `MemoryApi`)
//! on 127.0.0.1, N calls in sequence and N at once. Run with `cargo bench -p integration-tests --bench client`.
//!
//! Each iteration makes N calls, so criterion's throughput line is calls per second. The generated
//! client uses a static bearer token (the same header the hand-written requests send) with its
//! default retry policy; `generated-oauth` adds the client-credentials token cache;
//! `in-process` is the same client calling the server's router in process (feature `tower`,
//! `ClientBuilder::service`), with no socket.

use asset_alerting_client::models::{Asset, AssetInput, AssetTier};
use asset_alerting_client::{Client, RetryPolicy};
use criterion::{Criterion, Throughput, criterion_group};
use integration_tests::memory::{CLIENT_ID, CLIENT_SECRET, MemoryApi, ROOT_ACCOUNT, TOKEN};
use std::sync::Arc;
use std::time::Duration;
use tokio::runtime::Runtime;
use tokio::task::JoinSet;
use uuid::Uuid;

const N: usize = 100;

struct Setup {
    base_url: String,
    asset: Uuid,
    api: Arc<MemoryApi>,
}

/// The generated client calling the router of the same server in process.
fn in_process(api: &Arc<MemoryApi>) -> Client {
    Client::builder("http://localhost")
        .bearer_token(TOKEN)
        .service(asset_alerting_server::router(api.clone()))
        .build()
        .expect("client")
}

fn setup(runtime: &Runtime) -> Setup {
    runtime.block_on(async {
        let api = Arc::new(MemoryApi::default());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let address = listener.local_addr().expect("address");
        let app = asset_alerting_server::router(api.clone());
        tokio::spawn(async move {
            asset_alerting_server::axum::serve(listener, app)
                .await
                .expect("serve")
        });
        let base_url = format!("http://{address}");
        let client = Client::builder(&base_url)
            .bearer_token(TOKEN)
            .build()
            .expect("client");
        let input = AssetInput {
            id: None,
            account_id: None,
            is_deleted: None,
            external_id: "BENCH-1".to_owned(),
            device_id: None,
            name: "Bench truck".to_owned(),
            tier: AssetTier::Premium,
            disabled_events: None,
            telemetry_rules: None,
        };
        let asset = client
            .create_asset(ROOT_ACCOUNT, input)
            .send()
            .await
            .expect("create_asset");
        Setup {
            base_url,
            asset: asset.id,
            api,
        }
    })
}

/// `get_asset` through the generated client.
async fn generated(client: &Client, asset: Uuid) -> Asset {
    client
        .get_asset(ROOT_ACCOUNT, asset)
        .send()
        .await
        .expect("get_asset")
}

/// The same request written by hand with reqwest: URL, bearer header, status check, JSON body.
async fn by_hand(http: &reqwest::Client, base_url: &str, asset: Uuid) -> Asset {
    let url = format!("{base_url}/v1/accounts/{ROOT_ACCOUNT}/assets/{asset}");
    let response = http.get(url).bearer_auth(TOKEN).send().await.expect("send");
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    response.json().await.expect("asset")
}

fn client_vs_hand_written(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let Setup {
        base_url,
        asset,
        api,
    } = setup(&runtime);
    let client = Client::builder(&base_url)
        .bearer_token(TOKEN)
        .build()
        .expect("client");
    let local = in_process(&api);
    let oauth = Client::builder(&base_url)
        .client_credentials(CLIENT_ID, CLIENT_SECRET)
        .retry(RetryPolicy::default())
        .build()
        .expect("client");
    let http = reqwest::Client::new();

    let mut group = c.benchmark_group("get_asset");
    group.throughput(Throughput::Elements(N as u64));
    group.sample_size(30);
    group.warm_up_time(Duration::from_secs(1));
    group.measurement_time(Duration::from_secs(4));

    group.bench_function("sequential/generated", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..N {
                    generated(&client, asset).await;
                }
            })
        })
    });
    group.bench_function("sequential/generated-oauth", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..N {
                    generated(&oauth, asset).await;
                }
            })
        })
    });
    group.bench_function("sequential/in-process", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..N {
                    generated(&local, asset).await;
                }
            })
        })
    });
    group.bench_function("sequential/by-hand", |b| {
        b.iter(|| {
            runtime.block_on(async {
                for _ in 0..N {
                    by_hand(&http, &base_url, asset).await;
                }
            })
        })
    });
    group.bench_function("concurrent/generated", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut calls = JoinSet::new();
                for _ in 0..N {
                    let client = client.clone();
                    calls.spawn(async move { generated(&client, asset).await });
                }
                calls.join_all().await
            })
        })
    });
    group.bench_function("concurrent/in-process", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut calls = JoinSet::new();
                for _ in 0..N {
                    let client = local.clone();
                    calls.spawn(async move { generated(&client, asset).await });
                }
                calls.join_all().await
            })
        })
    });
    group.bench_function("concurrent/by-hand", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let mut calls = JoinSet::new();
                for _ in 0..N {
                    let (http, base_url) = (http.clone(), base_url.clone());
                    calls.spawn(async move { by_hand(&http, &base_url, asset).await });
                }
                calls.join_all().await
            })
        })
    });
    group.finish();
}

/// Rounds of N sequential calls each way, in alternating order (ABBA), so that the background load
/// of a shared machine hits both alike; prints the median rates and the median of the per-round
/// ratios.
fn interleaved_ratio() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let Setup {
        base_url, asset, ..
    } = setup(&runtime);
    let client = Client::builder(&base_url)
        .bearer_token(TOKEN)
        .build()
        .expect("client");
    let http = reqwest::Client::new();
    let rounds = 60;
    let (mut generated_rates, mut by_hand_rates, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    runtime.block_on(async {
        let time_generated = || async {
            let start = std::time::Instant::now();
            for _ in 0..N {
                generated(&client, asset).await;
            }
            N as f64 / start.elapsed().as_secs_f64()
        };
        let time_by_hand = || async {
            let start = std::time::Instant::now();
            for _ in 0..N {
                by_hand(&http, &base_url, asset).await;
            }
            N as f64 / start.elapsed().as_secs_f64()
        };
        for round in 0..=rounds {
            let (generated_rate, by_hand_rate) = if round % 2 == 0 {
                let g = time_generated().await;
                (g, time_by_hand().await)
            } else {
                let h = time_by_hand().await;
                (time_generated().await, h)
            };
            // Round 0 warms both connection pools up.
            if round > 0 {
                generated_rates.push(generated_rate);
                by_hand_rates.push(by_hand_rate);
                ratios.push(generated_rate / by_hand_rate);
            }
        }
    });
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!(
        "interleaved sequential get_asset (medians of {rounds} rounds of {N} calls each way): generated {:.0} calls/s, \
         by hand {:.0} calls/s, per-round ratio {:.3}",
        median(&mut generated_rates),
        median(&mut by_hand_rates),
        median(&mut ratios)
    );
}

/// Rounds of N sequential calls through the generated client, over 127.0.0.1 and in process, in
/// alternating order; prints the median rates and the median of the per-round ratios.
fn interleaved_in_process() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let Setup {
        base_url,
        asset,
        api,
    } = setup(&runtime);
    let over_http = Client::builder(&base_url)
        .bearer_token(TOKEN)
        .build()
        .expect("client");
    let local = in_process(&api);
    let rounds = 60;
    let (mut http_rates, mut local_rates, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    runtime.block_on(async {
        let time = |client: Client| async move {
            let start = std::time::Instant::now();
            for _ in 0..N {
                generated(&client, asset).await;
            }
            N as f64 / start.elapsed().as_secs_f64()
        };
        for round in 0..=rounds {
            let (http_rate, local_rate) = if round % 2 == 0 {
                let h = time(over_http.clone()).await;
                (h, time(local.clone()).await)
            } else {
                let l = time(local.clone()).await;
                (time(over_http.clone()).await, l)
            };
            if round > 0 {
                http_rates.push(http_rate);
                local_rates.push(local_rate);
                ratios.push(local_rate / http_rate);
            }
        }
    });
    let median = |values: &mut Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    println!(
        "interleaved sequential get_asset (medians of {rounds} rounds of {N} calls each way): in process {:.0} calls/s, \
         over 127.0.0.1 {:.0} calls/s, per-round ratio {:.2}",
        median(&mut local_rates),
        median(&mut http_rates),
        median(&mut ratios)
    );
}

criterion_group!(benches, client_vs_hand_written);

fn main() {
    benches();
    interleaved_ratio();
    interleaved_in_process();
    Criterion::default().configure_from_args().final_summary();
}
