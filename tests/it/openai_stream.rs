//! OpenAI's streaming chat completion through the generated client (tests/generated/openai-chat,
//! from tests/fixtures/openai-chat-stream.yaml, extracted from the corpus's openai-3.1.yaml) against
//! a local server that writes what OpenAI writes: `data: {chunk}` events, slowly, then
//! `data: [DONE]`. The server sends each chunk only when the test tells it to, and the test tells
//! it only once the client has decoded the previous one, so "the first chunk is decoded before the
//! last is sent" is proven by the order of events, not by timing. Every wait is bounded.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use futures_util::StreamExt;
use openai_chat_client::Client;
use openai_chat_client::models::{
    CreateChatCompletionRequest,
    CreateChatCompletionStreamResponseChoicesItemFinishReason as FinishReason,
};
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc;

const BOUND: Duration = Duration::from_secs(10);

/// One chunk as OpenAI sends it (`delta` content, then a last chunk with `finish_reason`).
fn chunk(index: usize, content: Option<&str>) -> String {
    let (delta, finish) = match content {
        Some(text) if index == 0 => (
            serde_json::json!({ "role": "assistant", "content": text, "refusal": null }),
            serde_json::Value::Null,
        ),
        Some(text) => (
            serde_json::json!({ "content": text }),
            serde_json::Value::Null,
        ),
        None => (serde_json::json!({}), serde_json::json!("stop")),
    };
    serde_json::json!({
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion.chunk",
        "created": 1_741_570_283,
        "model": "gpt-4o-2024-08-06",
        "service_tier": "default",
        "system_fingerprint": "fp_fc9f1d7035",
        "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }],
    })
    .to_string()
}

struct Server {
    /// The frames to write, as the test releases them; `None` ends the body.
    frames: Mutex<Option<mpsc::Receiver<String>>>,
    /// What the request asked for.
    accept: Mutex<Option<String>>,
}

async fn completions(
    axum::extract::State(server): axum::extract::State<Arc<Server>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let request: serde_json::Value = serde_json::from_slice(&body).expect("a JSON request");
    assert_eq!(request["stream"], serde_json::json!(true));
    *server.accept.lock().unwrap() = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let frames = server.frames.lock().unwrap().take().expect("one request");
    let body = futures_util::stream::unfold(frames, |mut frames| async move {
        let frame = frames.recv().await?;
        // Slowly, as a model writes.
        tokio::time::sleep(Duration::from_millis(20)).await;
        Some((Ok::<_, Infallible>(Bytes::from(frame)), frames))
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .body(Body::from_stream(body))
        .expect("a response")
}

#[tokio::test]
async fn a_streamed_chat_completion_is_decoded_chunk_by_chunk_until_done() {
    let (release, frames) = mpsc::channel::<String>(1);
    let server = Arc::new(Server {
        frames: Mutex::new(Some(frames)),
        accept: Mutex::new(None),
    });
    let app = axum::Router::new()
        .route("/chat/completions", post(completions))
        .with_state(server.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });

    let client = Client::builder(format!("http://{address}"))
        .bearer_token("sk-test")
        .build()
        .expect("client");
    let request: CreateChatCompletionRequest = serde_json::from_value(serde_json::json!({
        "model": "gpt-4o",
        "messages": [{ "role": "user", "content": "Say hello in three words." }],
        "stream": true,
    }))
    .expect("a request");

    let words = ["Hello", " there,", " friend."];
    let last_sent = Arc::new(AtomicBool::new(false));
    let mut stream =
        tokio::time::timeout(BOUND, client.create_chat_completion(request).send_stream())
            .await
            .expect("the answer's head in time")
            .expect("a stream");
    assert_eq!(
        server.accept.lock().unwrap().as_deref(),
        Some("text/event-stream")
    );

    let mut text = String::new();
    for (index, word) in words.iter().enumerate() {
        release
            .send(format!("data: {}\n\n", chunk(index, Some(word))))
            .await
            .expect("the server reads");
        let event = tokio::time::timeout(BOUND, stream.next())
            .await
            .expect("a chunk in time")
            .expect("a chunk")
            .expect("decoded");
        assert!(
            !last_sent.load(Ordering::SeqCst),
            "chunk {index} was decoded only after the last chunk was sent"
        );
        let choice = &event.data.choices[0];
        assert_eq!(event.data.id, "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT");
        assert!(choice.finish_reason.is_none());
        text.push_str(choice.delta.content.as_deref().unwrap_or_default());
    }
    assert_eq!(text, "Hello there, friend.");

    // The last chunk (`finish_reason: stop`), then `[DONE]`, which ends the stream.
    last_sent.store(true, Ordering::SeqCst);
    release
        .send(format!("data: {}\n\n", chunk(words.len(), None)))
        .await
        .expect("the server reads");
    release
        .send("data: [DONE]\n\n".to_owned())
        .await
        .expect("the server reads");
    let last = tokio::time::timeout(BOUND, stream.next())
        .await
        .expect("the last chunk in time")
        .expect("the last chunk")
        .expect("decoded");
    assert_eq!(last.data.choices[0].finish_reason, Some(FinishReason::Stop));
    let end = tokio::time::timeout(BOUND, stream.next())
        .await
        .expect("the end in time");
    assert!(end.is_none(), "[DONE] ends the stream: {end:?}");
    // The server still holds its sender: the stream ended at `[DONE]`, not at the body's end.
    drop(release);
}
