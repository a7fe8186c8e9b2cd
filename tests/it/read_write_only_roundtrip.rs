//! The crates generated from tests/fixtures/read-write-only.yaml (tests/generated/read-write-only),
//! over real HTTP on 127.0.0.1: `readOnly` and `writeOnly` decided by where a schema is used.
//! `Account` is read and written: what GET answers can be PUT back unchanged, a request without
//! the read-only fields is accepted, and a response without the write-only ones decodes.

use read_write_only_client::Client;
use read_write_only_server::models::{
    Account, Credentials, LabelledTag, Problem, Receipt, Settings, Signup, Tag,
};
use read_write_only_server::*;
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// One account, kept with the password it was last given (never answered).
struct Store {
    account: Mutex<(Account, Option<String>)>,
    /// The bodies PUT received, as decoded.
    received: Mutex<Vec<Account>>,
}

fn stored() -> Account {
    Account {
        id: Some("acc-1".to_owned()),
        name: "Ann".to_owned(),
        created_at: Some("2026-01-02T03:04:05Z".parse().unwrap()),
        revision: 3,
        version: 1,
        password: None,
        settings: Settings {
            theme: "dark".to_owned(),
            updated_at: Some("2026-01-03T00:00:00Z".parse().unwrap()),
        },
        tags: vec![
            Tag::String("plain".to_owned()),
            Tag::LabelledTag(LabelledTag {
                label: "vip".to_owned(),
                hits: Some(7),
            }),
        ],
    }
}

impl ReadWriteOnlyApi for Store {
    fn rejection(&self, rejection: &Rejection) -> Problem {
        Problem {
            code: i64::from(rejection.status.as_u16()),
            message: rejection.message.clone(),
        }
    }

    async fn get_account(&self, _request: GetAccountRequest) -> GetAccountResponse {
        GetAccountResponse::Ok(self.account.lock().unwrap().0.clone())
    }

    async fn put_account(&self, request: PutAccountRequest) -> PutAccountResponse {
        self.received.lock().unwrap().push(request.body.clone());
        let mut guard = self.account.lock().unwrap();
        let (account, password) = &mut *guard;
        // Read-only fields of the request are ignored; the writable ones are taken.
        account.name = request.body.name;
        account.settings.theme = request.body.settings.theme;
        account.tags = request.body.tags;
        account.revision += 1;
        if request.body.password.is_some() {
            *password = request.body.password;
        }
        PutAccountResponse::Ok(account.clone())
    }

    async fn sign_up(&self, request: SignUpRequest) -> SignUpResponse {
        let Signup {
            email, credentials, ..
        } = request.body;
        SignUpResponse::Created(Receipt {
            id: "r-1".to_owned(),
            email,
            // Responses leave the write-only secret out.
            credentials: Credentials {
                user: credentials.user,
                secret: None,
            },
        })
    }
}

async fn server() -> (String, Arc<Store>) {
    let store = Arc::new(Store {
        account: Mutex::new((stored(), None)),
        received: Mutex::new(Vec::new()),
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    let address = listener.local_addr().expect("local address");
    let app = router(store.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.expect("server runs") });
    (format!("http://{address}"), store)
}

async fn raw(method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut request = reqwest::Client::new().request(method, url);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.expect("sent");
    let status = response.status().as_u16();
    let text = response.text().await.expect("body");
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

#[tokio::test]
async fn what_get_answers_is_put_back_unchanged_and_accepted() {
    let (base, store) = server().await;
    let client = Client::new(base.clone()).expect("client");
    let got = client.get_account("acc-1").await.expect("GET");
    assert_eq!(got, stored());
    let mut changed = got.clone();
    changed.name = "Ann B".to_owned();
    let put = client
        .put_account("acc-1", changed)
        .await
        .expect("PUT accepted");
    assert_eq!(put.name, "Ann B");
    // The server received the read-only fields as sent, and ignored them.
    let received = store.received.lock().unwrap().last().cloned().unwrap();
    assert_eq!(received.id.as_deref(), Some("acc-1"));
    assert_eq!(put.revision, 4);
    assert_eq!(put.created_at, got.created_at);

    // The same over raw JSON: the GET body, byte for byte, goes back with PUT (the schema is
    // closed: `additionalProperties: false`).
    let url = format!("{base}/accounts/acc-1");
    let (status, body) = raw(reqwest::Method::GET, url.clone(), None).await;
    assert_eq!(status, 200);
    assert_eq!(body["id"], "acc-1");
    assert!(body.get("password").is_none(), "{body}");
    let (status, answer) = raw(reqwest::Method::PUT, url, Some(body.clone())).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["name"], body["name"]);
}

#[tokio::test]
async fn a_request_without_the_read_only_fields_is_accepted() {
    let (base, store) = server().await;
    let url = format!("{base}/accounts/acc-1");
    // No id, createdAt, revision, version, settings.updatedAt, hits: all read-only.
    let body = json!({
        "name": "Bo",
        "password": "correct horse",
        "settings": {"theme": "light"},
        "tags": [{"label": "new"}]
    });
    let (status, answer) = raw(reqwest::Method::PUT, url, Some(body)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["id"], "acc-1");
    assert_eq!(answer["createdAt"], "2026-01-02T03:04:05Z");
    assert_eq!(
        answer["settings"],
        json!({"theme": "light", "updatedAt": "2026-01-03T00:00:00Z"})
    );
    // The write-only password was taken, and is not answered.
    assert!(answer.get("password").is_none(), "{answer}");
    assert_eq!(
        store.account.lock().unwrap().1.as_deref(),
        Some("correct horse")
    );
    let received = store.received.lock().unwrap().last().cloned().unwrap();
    assert_eq!(received.id, None);
    assert_eq!(received.created_at, None);
    // A required read-only property with a spec default keeps its type and takes the default.
    assert_eq!(received.revision, 0);

    // The typed client builds such a request too: the read-only fields are `None` and not sent.
    let client = Client::new(base).expect("client");
    let request = Account {
        id: None,
        name: "Cy".to_owned(),
        created_at: None,
        revision: 0,
        version: 1,
        password: None,
        settings: Settings {
            theme: "blue".to_owned(),
            updated_at: None,
        },
        tags: Vec::new(),
    };
    let answer = client.put_account("acc-1", request).await.expect("PUT");
    assert_eq!(answer.id.as_deref(), Some("acc-1"));
    let sent = serde_json::to_value(store.received.lock().unwrap().last().unwrap()).unwrap();
    assert!(
        sent.get("id").is_none() && sent.get("createdAt").is_none(),
        "{sent}"
    );
    // Unknown properties are still refused: only declared ones are accepted.
    let (status, problem) = raw(
        reqwest::Method::PUT,
        format!("{}/accounts/acc-1", client.base_url()),
        Some(json!({"name": "Bo", "settings": {"theme": "x"}, "tags": [], "idd": "x"})),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
}

#[tokio::test]
async fn a_response_without_the_write_only_fields_decodes() {
    let (base, _store) = server().await;
    let client = Client::new(base.clone()).expect("client");
    let signup = Signup {
        email: "ann@example.com".to_owned(),
        password: "s3cret-pass".to_owned(),
        credentials: Credentials {
            user: "ann".to_owned(),
            secret: Some("token".to_owned()),
        },
    };
    let receipt = client.sign_up(signup).await.expect("sign up");
    assert_eq!(receipt.id, "r-1");
    assert_eq!(receipt.credentials.user, "ann");
    assert_eq!(receipt.credentials.secret, None);

    // The server still demands the write-only secret in requests (`Validate`), and the
    // request-only schema's write-only password is required as the spec says.
    let url = format!("{base}/signups");
    let (status, problem) = raw(
        reqwest::Method::POST,
        url.clone(),
        Some(json!({"email": "a", "password": "p", "credentials": {"user": "ann"}})),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    assert!(
        problem["message"]
            .as_str()
            .unwrap()
            .contains("credentials.secret: is required"),
        "{problem}"
    );
    let (status, problem) = raw(
        reqwest::Method::POST,
        url,
        Some(json!({"email": "a", "credentials": {"user": "ann", "secret": "s"}})),
    )
    .await;
    assert_eq!(status, 400, "{problem}");
    assert!(
        problem["message"].as_str().unwrap().contains("password"),
        "{problem}"
    );

    // A response-only schema keeps its read-only properties required.
    let message =
        serde_json::from_value::<Receipt>(json!({"email": "a", "credentials": {"user": "u"}}))
            .expect_err("id is required in responses")
            .to_string();
    assert!(message.contains("missing field `id`"), "{message}");
}
