//! The HTTP memory-model backends, called as a library, against the fake
//! model server: wire formats, timeouts, retries, error classes, cleaning
//! and preflight. https against a private CA is in `tls`.

mod tls;

use std::net::TcpListener;
use std::time::{Duration, Instant};

use crate::support::{Action, FakeServer, Recorded};
use ragger::llm::http::{HttpOptions, OllamaModel, OpenAiModel};
use ragger::llm::{complete, MemoryModel, Message, ModelError, Reply, Request, Usage};
use serde_json::{json, Value};

fn opts(url: String) -> HttpOptions {
    HttpOptions {
        url,
        model: "fake-model".into(),
        api_key: None,
        timeout: Duration::from_secs(5),
        retries: 2,
        tls: None,
    }
}

fn openai(server: &FakeServer) -> OpenAiModel {
    OpenAiModel::new(opts(server.openai_url())).with_backoff(Duration::from_millis(10))
}

fn ollama(server: &FakeServer) -> OllamaModel {
    OllamaModel::new(opts(server.ollama_url())).with_backoff(Duration::from_millis(10))
}

fn request() -> Request {
    Request {
        messages: vec![
            Message::system("Summarize the turn in one sentence."),
            Message::user("User: how do I list files?\nAssistant: use ls."),
        ],
        temperature: 0.2,
        max_tokens: 64,
        stop: vec![],
        settled: None,
        vocabulary: None,
    }
}

/// A port on which nothing listens.
fn closed_port_url() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

fn expect_err(r: Result<impl std::fmt::Debug, ModelError>) -> ModelError {
    r.expect_err("expected an error")
}

const SUMMARY: &str = "The user asked how to list files.";

/// Sends `request()` with a stop word through the backend `model` builds to
/// a server that answers `SUMMARY`; checks the reply's text and returns the
/// reply and the first request the server saw, for the wire-format tests.
fn summarize_with_a_stop_word<M: MemoryModel>(model: impl Fn(&FakeServer) -> M) -> (Reply, Recorded) {
    let server = FakeServer::fixed(SUMMARY);
    let mut req = request();
    req.stop = vec!["\n\n".into()];
    let reply = model(&server).generate(&req).unwrap();
    assert_eq!(reply.text, SUMMARY);
    (reply, server.requests().remove(0))
}

/// Sends `request()` through the OpenAI backend to a server that answers
/// every call with HTTP `code` and `message`; checks that the backend sent
/// it `tries` times and that the error is of `class` and quotes the code and
/// the message. Returns the error's text and the server's URL.
#[track_caller]
fn status_error(code: u16, message: &'static str, tries: usize, class: fn(String) -> ModelError) -> (String, String) {
    let server = FakeServer::start(move |_| Action::status(code, message));
    let err = expect_err(openai(&server).generate(&request()));
    assert_eq!(server.count(), tries, "HTTP {code}: requests sent");
    let (ModelError::Unavailable(m) | ModelError::BadReply(m) | ModelError::Refused(m)) = &err else {
        panic!("HTTP {code}: {err:?}")
    };
    assert_eq!(err, class(m.clone()), "HTTP {code}");
    assert!(m.contains(message) && m.contains(&code.to_string()), "{m}");
    (m.clone(), server.openai_url())
}

/// `request()`'s messages as both APIs carry them.
fn request_messages() -> Value {
    json!([
        {"role": "system", "content": "Summarize the turn in one sentence."},
        {"role": "user", "content": "User: how do I list files?\nAssistant: use ls."},
    ])
}

#[test]
fn openai_request_body_and_reply() {
    let (reply, sent) = summarize_with_a_stop_word(openai);
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: Some(15),
            completion_tokens: Some(7),
            prompt_evaluated: Some(4),
            prompt_time: Some(Duration::from_micros(2500)),
            generation_time: Some(Duration::from_micros(10250)),
        }
    );
    assert_eq!((sent.method.as_str(), sent.path.as_str()), ("POST", "/v1/chat/completions"));
    assert_eq!(
        sent.body,
        json!({
            "model": "fake-model",
            "messages": request_messages(),
            "temperature": 0.2,
            "max_tokens": 64,
            "stream": false,
            "stop": ["\n\n"],
        })
    );
    assert_eq!(sent.system(), "Summarize the turn in one sentence.");
    assert!(sent.header("content-type").unwrap().starts_with("application/json"));
}

#[test]
fn openai_reply_without_usage_or_with_bad_timings_has_no_figures() {
    let choice = r#""choices":[{"index":0,"message":{"role":"assistant","content":"ok"}}]"#;
    let server = FakeServer::start(move |req| match req.path.as_str() {
        "/v1/chat/completions" if req.user().contains("first") => Action::raw(200, format!("{{{choice}}}")),
        _ => Action::raw(
            200,
            format!(r#"{{{choice},"timings":{{"prompt_n":-3,"prompt_ms":-1.0,"predicted_ms":"fast"}}}}"#),
        ),
    });
    let mut req = request();
    req.messages[1].content = "first".into();
    let plain = openai(&server).generate(&req).unwrap();
    assert_eq!((plain.text.as_str(), &plain.usage), ("ok", &Usage::default()));
    req.messages[1].content = "second".into();
    let odd = openai(&server).generate(&req).unwrap();
    assert_eq!(odd.usage, Usage::default());
}

#[test]
fn openai_request_without_stop_words_has_no_stop_field() {
    let server = FakeServer::fixed("ok");
    openai(&server).generate(&request()).unwrap();
    assert!(server.chat_requests()[0].body.get("stop").is_none());
}

#[test]
fn ollama_request_body_and_reply() {
    let (reply, sent) = summarize_with_a_stop_word(ollama);
    assert_eq!(
        reply.usage,
        Usage {
            prompt_tokens: Some(15),
            completion_tokens: Some(7),
            prompt_evaluated: None,
            prompt_time: Some(Duration::from_millis(2)),
            generation_time: Some(Duration::from_micros(3500)),
        }
    );
    assert_eq!((sent.method.as_str(), sent.path.as_str()), ("POST", "/api/chat"));
    assert_eq!(
        sent.body,
        json!({
            "model": "fake-model",
            "messages": request_messages(),
            "stream": false,
            "think": false,
            "options": {"temperature": 0.2, "num_predict": 64, "stop": ["\n\n"]},
        })
    );
}

#[test]
fn a_hanging_server_times_out_as_unavailable_without_retrying() {
    let server = FakeServer::start(|_| Action::Hang);
    let model = OpenAiModel::new(HttpOptions { timeout: Duration::from_millis(300), ..opts(server.openai_url()) });
    let started = Instant::now();
    let err = expect_err(model.generate(&request()));
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains(&server.openai_url())), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3), "took {:?}", started.elapsed());
    assert_eq!(server.count(), 1);
}

#[test]
fn a_server_that_hangs_on_a_pooled_connection_times_out() {
    // The preflight opens a kept-alive connection; the chat request reuses
    // it, and the server never answers it.
    let server = FakeServer::start(|r| if r.is_chat() { Action::Hang } else { Action::text("") });
    let model = OpenAiModel::new(HttpOptions { timeout: Duration::from_millis(500), ..opts(server.openai_url()) });
    model.preflight().unwrap();
    let started = Instant::now();
    let err = expect_err(model.generate(&request()));
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains("within 0.5s")), "{err}");
    assert!(started.elapsed() < Duration::from_millis(1500), "took {:?}", started.elapsed());
    assert_eq!(server.requests().len(), 2, "one connection, no retry");
}

#[test]
fn a_server_that_drips_its_reply_is_cut_off_at_the_timeout() {
    for close in [false, true] {
        let server = FakeServer::start(|_| Action::Drip(Duration::from_millis(100)));
        let server = if close { server.with_connection_close() } else { server };
        let model = OpenAiModel::new(HttpOptions { timeout: Duration::from_millis(500), ..opts(server.openai_url()) });
        let started = Instant::now();
        let err = expect_err(model.generate(&request()));
        assert!(matches!(&err, ModelError::Unavailable(_)), "{err}");
        assert!(started.elapsed() < Duration::from_millis(1500), "took {:?}", started.elapsed());
    }
}

#[test]
fn retries_end_at_the_timeout_too() {
    let server = FakeServer::start(|_| Action::delayed(Duration::from_millis(200), Action::status(503, "busy")));
    let model =
        OpenAiModel::new(HttpOptions { timeout: Duration::from_millis(700), retries: 10, ..opts(server.openai_url()) })
            .with_backoff(Duration::from_millis(100));
    let started = Instant::now();
    expect_err(model.generate(&request()));
    assert!(started.elapsed() < Duration::from_millis(1200), "took {:?}", started.elapsed());
    assert!(server.count() < 5, "{} requests", server.count());
}

#[test]
fn a_reply_body_over_the_limit_is_a_bad_reply() {
    let body = format!("{{\"choices\":[{{\"message\":{{\"content\":\"{}\"}}}}]}}", "x".repeat(9 << 20));
    let server = FakeServer::start(move |_| Action::raw(200, body.clone()));
    let err = expect_err(openai(&server).generate(&request()));
    assert!(matches!(&err, ModelError::BadReply(m) if m.contains("longer than 8 MiB")), "{err}");
    assert_eq!(server.count(), 1, "not retried");
}

#[test]
fn a_reply_slower_than_the_timeout_is_unavailable() {
    let server = FakeServer::start(|_| Action::delayed(Duration::from_secs(2), Action::text("late")));
    let model = OllamaModel::new(HttpOptions { timeout: Duration::from_millis(300), ..opts(server.ollama_url()) });
    assert!(matches!(model.generate(&request()), Err(ModelError::Unavailable(_))));
}

#[test]
fn a_reply_within_the_timeout_is_fine() {
    let server = FakeServer::start(|_| Action::delayed(Duration::from_millis(100), Action::text("ok")));
    let model = OpenAiModel::new(HttpOptions { timeout: Duration::from_secs(2), ..opts(server.openai_url()) });
    assert_eq!(model.generate(&request()).unwrap().text, "ok");
}

#[test]
fn a_500_then_a_200_succeeds_after_one_retry() {
    for api in ["openai", "ollama"] {
        let server = FakeServer::sequence(vec![Action::status(500, "boom"), Action::text("fine")]);
        let reply = match api {
            "openai" => openai(&server).generate(&request()),
            _ => ollama(&server).generate(&request()),
        };
        assert_eq!(reply.unwrap().text, "fine", "{api}");
        assert_eq!(server.count(), 2, "{api}");
    }
}

#[test]
fn overload_errors_and_429_are_retried_then_unavailable() {
    for code in [502, 503, 504, 429] {
        // One try and two retries.
        let (m, url) = status_error(code, "model is loading", 3, ModelError::Unavailable);
        assert!(m.contains(&url), "{m}");
    }
}

#[test]
fn a_500_is_retried_then_a_bad_reply_for_that_request() {
    // The server answers, so it is up: this request failed, and the item
    // it was for counts an attempt instead of stopping the whole pass.
    // One try and two retries.
    status_error(500, "template crashed", 3, ModelError::BadReply);
}

#[test]
fn retries_back_off_exponentially() {
    let server = FakeServer::start(|_| Action::status(503, "busy"));
    let model = OpenAiModel::new(opts(server.openai_url())).with_backoff(Duration::from_millis(100));
    let started = Instant::now();
    expect_err(model.generate(&request()));
    let elapsed = started.elapsed();
    // 100 ms, then 200 ms.
    assert!(elapsed >= Duration::from_millis(300), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(2), "{elapsed:?}");
}

#[test]
fn the_default_backoff_starts_at_a_quarter_second() {
    let server = FakeServer::start(|_| Action::status(500, "down"));
    let model = OpenAiModel::new(HttpOptions { retries: 1, ..opts(server.openai_url()) });
    let started = Instant::now();
    expect_err(model.generate(&request()));
    assert!(started.elapsed() >= Duration::from_millis(250));
    assert_eq!(server.count(), 2);
}

#[test]
fn zero_retries_means_one_request() {
    let server = FakeServer::start(|_| Action::status(503, "busy"));
    let model = OpenAiModel::new(HttpOptions { retries: 0, ..opts(server.openai_url()) });
    expect_err(model.generate(&request()));
    assert_eq!(server.count(), 1);
}

#[test]
fn a_400_is_a_bad_reply_for_that_request_at_once() {
    for (code, message) in [(400, "flagged by the content filter"), (413, "prompt too long"), (422, "bad field")] {
        // One request: not retried.
        status_error(code, message, 1, ModelError::BadReply);
    }
}

#[test]
fn configuration_errors_are_refused_at_once_with_the_servers_message() {
    for (code, message) in
        [(403, "forbidden"), (401, "Incorrect API key provided"), (404, "The model `nope` does not exist")]
    {
        // One request: not retried.
        status_error(code, message, 1, ModelError::Refused);
    }
}

#[test]
fn ollama_model_not_found_is_refused_with_its_message() {
    let server = FakeServer::start(|_| Action::status(404, "model \"nope\" not found, try pulling it first"));
    let err = expect_err(ollama(&server).generate(&request()));
    assert_eq!(
        err,
        ModelError::Refused(format!(
            "HTTP 404 from {}/api/chat: model \"nope\" not found, try pulling it first",
            server.ollama_url()
        ))
    );
    assert_eq!(server.count(), 1);
}

#[test]
fn a_long_error_body_is_shortened() {
    let server = FakeServer::start(|_| Action::raw(400, format!("<html>{}</html>", "x".repeat(5000))));
    let ModelError::BadReply(m) = expect_err(openai(&server).generate(&request())) else { panic!() };
    assert!(m.len() < 400, "{} chars", m.len());
}

#[test]
fn a_dropped_connection_is_retried() {
    let server = FakeServer::sequence(vec![Action::Drop, Action::text("second try")]);
    assert_eq!(openai(&server).generate(&request()).unwrap().text, "second try");
    assert_eq!(server.count(), 2);
}

#[test]
fn a_connection_dropped_every_time_is_unavailable() {
    let server = FakeServer::start(|_| Action::Drop);
    let err = expect_err(ollama(&server).generate(&request()));
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains(&server.ollama_url())), "{err}");
    assert_eq!(server.count(), 3);
}

#[test]
fn a_server_that_is_down_is_unavailable_naming_the_url() {
    let url = closed_port_url();
    let model = OpenAiModel::new(opts(url.clone())).with_backoff(Duration::from_millis(1));
    let err = expect_err(model.generate(&request()));
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains(&url)), "{err}");
    let err = expect_err(model.preflight());
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains(&url)), "{err}");
}

#[test]
fn malformed_json_is_a_bad_reply_and_not_retried() {
    let server = FakeServer::start(|_| Action::Malformed);
    assert!(matches!(openai(&server).generate(&request()), Err(ModelError::BadReply(_))));
    assert!(matches!(ollama(&server).generate(&request()), Err(ModelError::BadReply(_))));
    assert_eq!(server.count(), 2);
}

#[test]
fn replies_without_text_are_bad_replies() {
    for body in [
        r#"{"choices": []}"#,
        r#"{"id": "x"}"#,
        r#"{"choices": [{"message": {"role": "assistant"}}]}"#,
        r#"{"choices": [{"message": {"role": "assistant", "content": null}}]}"#,
    ] {
        let server = FakeServer::start(move |_| Action::raw(200, body));
        let err = expect_err(openai(&server).generate(&request()));
        assert!(matches!(err, ModelError::BadReply(_)), "{body}: {err:?}");
    }
    let server = FakeServer::start(|_| Action::raw(200, r#"{"done": true}"#));
    assert!(matches!(ollama(&server).generate(&request()), Err(ModelError::BadReply(_))));
}

#[test]
fn a_think_only_reply_is_a_bad_reply_through_complete() {
    let server = FakeServer::fixed("<think>\nThe user wants a summary. Let me think about the");
    let model = openai(&server);
    assert!(model.generate(&request()).is_ok(), "generate returns the raw text");
    let err = expect_err(complete(&model, &request()));
    assert!(matches!(err, ModelError::BadReply(_)), "{err:?}");
}

#[test]
fn complete_cleans_the_reply_and_keeps_the_usage() {
    let server = FakeServer::fixed(
        "<think>short</think>\n<|im_start|>assistant\n**Summary:** \"The user  listed files.\"<|im_end|>\n<|im_start|>user",
    );
    let reply = complete(&ollama(&server), &request()).unwrap();
    assert_eq!(reply.text, "The user listed files.");
    assert_eq!(reply.usage.prompt_tokens, Some(15));
}

#[test]
fn preflight_accepts_a_listed_model() {
    let server = FakeServer::fixed("ok").with_models(&["other", "fake-model"]);
    openai(&server).preflight().unwrap();
    ollama(&server).preflight().unwrap();
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/models", "/api/tags"]);
    assert_eq!(server.count(), 0, "a preflight is not a model call");
}

#[test]
fn preflight_refuses_a_model_that_is_not_listed() {
    let server = FakeServer::fixed("ok").with_models(&["qwen2.5:0.5b", "llama3.2:1b"]);
    for err in [expect_err(openai(&server).preflight()), expect_err(ollama(&server).preflight())] {
        let ModelError::Unavailable(m) = err else { panic!("{err:?}") };
        assert!(m.contains("fake-model") && m.contains(&server.url()) && m.contains("qwen2.5:0.5b"), "{m}");
    }
}

#[test]
fn preflight_against_a_failing_server_is_unavailable() {
    let server = FakeServer::start(|_| Action::status(503, "loading model"));
    assert!(matches!(openai(&server).preflight(), Err(ModelError::Unavailable(_))));
}

#[test]
fn ollama_preflight_accepts_the_latest_tag_either_way() {
    let server = FakeServer::fixed("ok").with_models(&["llama3:latest", "qwen2.5:0.5b"]);
    let m = OllamaModel::new(HttpOptions { model: "llama3".into(), ..opts(server.ollama_url()) });
    m.preflight().unwrap();
    let server = FakeServer::fixed("ok").with_models(&["llama3"]);
    let m = OllamaModel::new(HttpOptions { model: "llama3:latest".into(), ..opts(server.ollama_url()) });
    m.preflight().unwrap();
    let m = OllamaModel::new(HttpOptions { model: "llama3:8b".into(), ..opts(server.ollama_url()) });
    assert!(m.preflight().is_err());
}

#[test]
fn an_empty_model_name_uses_the_first_listed_model() {
    let server = FakeServer::fixed("ok").with_models(&["/models/SmolLM2-135M-Instruct.Q4_1.gguf", "b"]);
    let model = OpenAiModel::new(HttpOptions { model: String::new(), ..opts(server.openai_url()) });
    model.preflight().unwrap();
    model.generate(&request()).unwrap();
    assert_eq!(server.chat_requests()[0].model(), Some("/models/SmolLM2-135M-Instruct.Q4_1.gguf"));
    assert_eq!(model.model_id(), "openai:SmolLM2-135M-Instruct.Q4_1.gguf");
}

#[test]
fn a_model_listed_by_path_matches_its_file_name() {
    // llama.cpp servers list the model file's path as its id.
    let server = FakeServer::fixed("ok").with_models(&["/home/u/models/SmolLM2-135M-Instruct.Q4_1.gguf"]);
    let model =
        OpenAiModel::new(HttpOptions { model: "SmolLM2-135M-Instruct.Q4_1.gguf".into(), ..opts(server.openai_url()) });
    model.preflight().unwrap();
    model.generate(&request()).unwrap();
    assert_eq!(server.chat_requests()[0].model(), Some("/home/u/models/SmolLM2-135M-Instruct.Q4_1.gguf"));
    assert_eq!(model.model_id(), "openai:SmolLM2-135M-Instruct.Q4_1.gguf");
}

#[test]
fn the_api_key_is_sent_as_a_bearer_token() {
    let server = FakeServer::fixed("ok");
    let model = OpenAiModel::new(HttpOptions { api_key: Some("sk-test-123".into()), ..opts(server.openai_url()) });
    model.preflight().unwrap();
    model.generate(&request()).unwrap();
    for r in server.requests() {
        assert_eq!(r.header("authorization"), Some("Bearer sk-test-123"), "{}", r.path);
    }
}

#[test]
fn no_authorization_header_without_a_key() {
    let server = FakeServer::fixed("ok");
    openai(&server).preflight().unwrap();
    openai(&server).generate(&request()).unwrap();
    ollama(&server).generate(&request()).unwrap();
    assert!(server.requests().iter().all(|r| r.header("authorization").is_none()));
}

#[test]
fn the_api_key_never_appears_in_errors() {
    let server = FakeServer::start(|_| Action::status(401, "invalid key"));
    let model = OpenAiModel::new(HttpOptions { api_key: Some("sk-secret-9".into()), ..opts(server.openai_url()) });
    let err = expect_err(model.generate(&request()));
    assert!(!err.to_string().contains("sk-secret-9"));
    assert!(!model.describe().contains("sk-secret-9"));
    assert!(!format!("{model:?}").contains("sk-secret-9"));
}

#[test]
fn pooled_keep_alive_and_closed_connections_both_work() {
    for server in [FakeServer::fixed("ok"), FakeServer::fixed("ok").with_connection_close()] {
        let o = openai(&server);
        let l = ollama(&server);
        for _ in 0..3 {
            o.preflight().unwrap();
            assert_eq!(o.generate(&request()).unwrap().text, "ok");
            assert_eq!(l.generate(&request()).unwrap().text, "ok");
        }
        assert_eq!(server.count(), 6);
    }
}

#[test]
fn a_drop_on_a_pooled_connection_is_retried() {
    // The first request leaves a kept-alive connection in ureq's pool; the
    // server then drops the second request on it.
    let server = FakeServer::sequence(vec![Action::text("one"), Action::Drop, Action::text("three")]);
    let model = OpenAiModel::new(HttpOptions { retries: 1, ..opts(server.openai_url()) });
    assert_eq!(model.generate(&request()).unwrap().text, "one");
    assert_eq!(model.generate(&request()).unwrap().text, "three");
    assert_eq!(server.count(), 3);
}

#[test]
fn https_to_a_plain_http_server_is_unavailable_and_says_why() {
    let server = FakeServer::fixed("ok");
    let url = server.openai_url().replace("http://", "https://");
    let err = expect_err(OpenAiModel::new(HttpOptions { retries: 0, ..opts(url) }).generate(&request()));
    assert!(matches!(&err, ModelError::Unavailable(m) if m.contains("tls")), "{err:?}");
}

#[test]
fn the_fake_server_records_what_tests_need() {
    let server = FakeServer::start(|r| Action::text(format!("echo: {}", r.user())));
    let reply = openai(&server).generate(&request()).unwrap();
    assert_eq!(reply.text, "echo: User: how do I list files?\nAssistant: use ls.");
    let r = &server.chat_requests()[0];
    assert_eq!(r.prompt(), "Summarize the turn in one sentence.\nUser: how do I list files?\nAssistant: use ls.");
    assert_eq!(r.model(), Some("fake-model"));
    assert_eq!(server.count(), 1);
}
