// Starts `loopy lsp` for .loopy files. The server does all the work; this only launches it.
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("loopy");
  const command = config.get("path") || "loopy";
  const budget = config.get("budget");
  const args = budget ? ["--budget", String(budget), "lsp", "--stdio"] : ["lsp", "--stdio"];
  const server = { command, args };
  client = new LanguageClient(
    "loopy",
    "loopy",
    { run: server, debug: server },
    { documentSelector: [{ scheme: "file", language: "loopy" }] }
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
