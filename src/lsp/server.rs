//! The message loop. The main thread reads messages and hands them to one worker thread,
//! which owns every document and analysis; a change of a document sets the flag that cancels
//! the analysis running on its older text, so the worker is never busy with stale text. The
//! worker waits for a short pause in typing before it analyses (debouncing), and analyses at
//! once when a request needs the current text.

use super::analysis::{analyse, Analysis, Kernels};
use super::features;
use super::text::LineIndex;
use super::uri;
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, Completion, GotoDefinition, HoverRequest};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CompletionOptions, CompletionParams, CompletionResponse,
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    GotoDefinitionParams, GotoDefinitionResponse, Hover, HoverContents, HoverParams,
    HoverProviderCapability, MarkupContent, MarkupKind, OneOf, PublishDiagnosticsParams,
    ServerCapabilities, TextDocumentSyncCapability, TextDocumentSyncKind, Uri, WorkspaceEdit,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long the text must rest before it is analysed.
pub const DEBOUNCE: Duration = Duration::from_millis(60);

/// What the server can do, as it tells the editor.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["(".into(), ",".into(), "[".into()]),
            ..Default::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Simple(true)),
        ..Default::default()
    }
}

/// Serves one editor over `connection` until it shuts down. `budget` is the work budget of
/// each analysis.
pub fn serve(connection: Connection, budget: u64) -> Result<(), String> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    connection
        .initialize(caps)
        .map_err(|e| format!("initialization failed: {e}"))?;
    let running: Running = Arc::new(Mutex::new(HashMap::new()));
    let (tx, rx) = crossbeam_channel::unbounded::<Message>();
    let sender = connection.sender.clone();
    let worker_running = running.clone();
    let worker = std::thread::Builder::new()
        .name("loopy-lsp-worker".into())
        .spawn(move || Worker::new(sender, worker_running, budget).run(rx))
        .map_err(|e| e.to_string())?;
    for msg in &connection.receiver {
        if let Message::Request(req) = &msg {
            match connection.handle_shutdown(req) {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => return Err(e.to_string()),
            }
        }
        if let Message::Notification(n) = &msg {
            if n.method == DidChangeTextDocument::METHOD || n.method == DidCloseTextDocument::METHOD
            {
                if let Some(u) = n
                    .params
                    .pointer("/textDocument/uri")
                    .and_then(|u| u.as_str())
                {
                    if let Some(flag) = running.lock().unwrap_or_else(|e| e.into_inner()).get(u) {
                        flag.store(true, Ordering::Relaxed);
                    }
                }
            }
        }
        if tx.send(msg).is_err() {
            break;
        }
    }
    drop(tx);
    worker
        .join()
        .map_err(|_| "the worker thread panicked".to_string())
}

/// The cancellation flag of the analysis running on each document, by URI.
type Running = Arc<Mutex<HashMap<String, Arc<AtomicBool>>>>;

struct Document {
    version: i32,
    text: String,
    /// When set, the text changed and is analysed once this moment has passed.
    due: Option<Instant>,
    analysis: Option<Analysis>,
}

struct Worker {
    sender: Sender<Message>,
    running: Running,
    budget: u64,
    docs: HashMap<String, (Uri, Document)>,
    kernels: Kernels,
}

impl Worker {
    fn new(sender: Sender<Message>, running: Running, budget: u64) -> Worker {
        Worker {
            sender,
            running,
            budget,
            docs: HashMap::new(),
            kernels: Kernels::default(),
        }
    }

    fn run(mut self, rx: Receiver<Message>) {
        loop {
            let next_due = self.docs.values().filter_map(|(_, d)| d.due).min();
            let msg = match next_due {
                None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                Some(t) => rx.recv_timeout(t.saturating_duration_since(Instant::now())),
            };
            match msg {
                Ok(Message::Notification(n)) => self.notification(n),
                Ok(Message::Request(r)) => self.request(r),
                Ok(Message::Response(_)) => {}
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    let due: Vec<String> = (self.docs.iter())
                        .filter(|(_, (_, d))| d.due.is_some_and(|t| t <= now))
                        .map(|(k, _)| k.clone())
                        .collect();
                    for k in due {
                        self.refresh(&k);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
    }

    fn notification(&mut self, n: Notification) {
        let due = Some(Instant::now() + DEBOUNCE);
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else {
                    return;
                };
                let d = p.text_document;
                self.docs.insert(
                    d.uri.as_str().to_string(),
                    (
                        d.uri,
                        Document {
                            version: d.version,
                            text: d.text,
                            due,
                            analysis: None,
                        },
                    ),
                );
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else {
                    return;
                };
                let key = p.text_document.uri.as_str().to_string();
                // Full synchronisation: the last change holds the whole text.
                if let (Some((_, d)), Some(c)) = (
                    self.docs.get_mut(&key),
                    p.content_changes.into_iter().last(),
                ) {
                    d.text = c.text;
                    d.version = p.text_document.version;
                    d.due = due;
                }
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else {
                    return;
                };
                if let Some((uri, _)) = self.docs.remove(p.text_document.uri.as_str()) {
                    self.publish(uri, vec![], None);
                }
            }
            _ => {}
        }
    }

    /// Analyses the document `key` now (if its text changed) and publishes its diagnostics.
    fn refresh(&mut self, key: &str) {
        let Some((uri, doc)) = self.docs.get_mut(key) else {
            return;
        };
        if doc.due.is_none() && doc.analysis.is_some() {
            return;
        }
        doc.due = None;
        let (uri, text, version) = (uri.clone(), doc.text.clone(), doc.version);
        let Some(path) = uri::to_path(&uri) else {
            return;
        };
        let flag = Arc::new(AtomicBool::new(false));
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string(), flag.clone());
        let (kernels, budget) = (&mut self.kernels, self.budget);
        // Every failure of the analysis is a diagnostic in it (a spent work budget too:
        // `presburger::budget` answers it as a value); nothing is caught here.
        let result = analyse(&path, &text, kernels, budget, flag.clone());
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
        // `None`: cancelled, newer text is waiting.
        let Some(analysis) = result else {
            return;
        };
        let diags = analysis.diagnostics.clone();
        if let Some((_, doc)) = self.docs.get_mut(key) {
            if doc.version == version && doc.due.is_none() {
                doc.analysis = Some(analysis);
                self.publish(uri, diags, Some(version));
            }
        }
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        let n = Notification::new(PublishDiagnostics::METHOD.to_string(), params);
        let _ = self.sender.send(Message::Notification(n));
    }

    fn respond(&self, id: RequestId, result: Result<serde_json::Value, String>) {
        let r = match result {
            Ok(v) => Response::new_ok(id, v),
            Err(e) => Response::new_err(id, lsp_server::ErrorCode::InternalError as i32, e),
        };
        let _ = self.sender.send(Message::Response(r));
    }

    /// The current analysis of a document (analysed now when its text changed).
    fn current(&mut self, uri: &Uri) -> Option<&Analysis> {
        let key = uri.as_str().to_string();
        self.refresh(&key);
        self.docs.get(&key).and_then(|(_, d)| d.analysis.as_ref())
    }

    fn request(&mut self, req: Request) {
        let id = req.id.clone();
        let result = self.answer(req);
        self.respond(id, result);
    }

    fn answer(&mut self, req: Request) -> Result<serde_json::Value, String> {
        use lsp_types::request::Request as _;
        let json = |v: serde_json::Result<serde_json::Value>| v.map_err(|e| e.to_string());
        match req.method.as_str() {
            HoverRequest::METHOD => {
                let p: HoverParams =
                    serde_json::from_value(req.params).map_err(|e| e.to_string())?;
                let at = &p.text_document_position_params;
                let Some(a) = self.current(&at.text_document.uri) else {
                    return Ok(serde_json::Value::Null);
                };
                let off = LineIndex::new(&a.text).offset(at.position);
                let h = features::hover(a, off).map(|value| Hover {
                    contents: HoverContents::Markup(MarkupContent {
                        kind: MarkupKind::Markdown,
                        value,
                    }),
                    range: None,
                });
                json(serde_json::to_value(h))
            }
            Completion::METHOD => {
                let p: CompletionParams =
                    serde_json::from_value(req.params).map_err(|e| e.to_string())?;
                let at = &p.text_document_position;
                let Some(a) = self.current(&at.text_document.uri) else {
                    return Ok(serde_json::Value::Null);
                };
                let off = LineIndex::new(&a.text).offset(at.position);
                let items = features::completion(a, off);
                json(serde_json::to_value(CompletionResponse::Array(items)))
            }
            GotoDefinition::METHOD => {
                let p: GotoDefinitionParams =
                    serde_json::from_value(req.params).map_err(|e| e.to_string())?;
                let at = &p.text_document_position_params;
                let Some(a) = self.current(&at.text_document.uri) else {
                    return Ok(serde_json::Value::Null);
                };
                let off = LineIndex::new(&a.text).offset(at.position);
                let d = features::definition(a, off).map(GotoDefinitionResponse::Scalar);
                json(serde_json::to_value(d))
            }
            CodeActionRequest::METHOD => {
                let p: CodeActionParams =
                    serde_json::from_value(req.params).map_err(|e| e.to_string())?;
                self.code_actions(p)
            }
            _ => Err(format!("`{}` is not supported", req.method)),
        }
    }

    fn code_actions(&mut self, p: CodeActionParams) -> Result<serde_json::Value, String> {
        let uri = p.text_document.uri.clone();
        let key = uri.as_str().to_string();
        // The current analysis first: its own run registers and removes a flag of its own.
        self.refresh(&key);
        let flag = Arc::new(AtomicBool::new(false));
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.clone(), flag.clone());
        let current = self.docs.get(&key).and_then(|(_, d)| d.analysis.as_ref());
        let repair = current.and_then(|a| {
            // Only where the editor asks about an illegal schedule's diagnostic, or about a
            // range that holds one.
            let ours = |d: &lsp_types::Diagnostic| a.diagnostics.iter().any(|x| x.range == d.range);
            let asked = p.context.diagnostics.iter().any(ours)
                || a.diagnostics
                    .iter()
                    .any(|d| d.range.start <= p.range.end && p.range.start <= d.range.end);
            if !asked {
                return None;
            }
            features::repair(a, flag.clone()).map(|r| (r, a.diagnostics.clone()))
        });
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&key);
        let Some(((title, edit), diagnostics)) = repair else {
            return serde_json::to_value(Vec::<CodeActionOrCommand>::new())
                .map_err(|e| e.to_string());
        };
        let action = CodeAction {
            title,
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(diagnostics),
            edit: Some(WorkspaceEdit {
                changes: Some(HashMap::from([(uri, vec![edit])])),
                ..Default::default()
            }),
            is_preferred: Some(true),
            ..Default::default()
        };
        serde_json::to_value(vec![CodeActionOrCommand::CodeAction(action)])
            .map_err(|e| e.to_string())
    }
}
