// The warscribe extension: starts `warscribe lsp --stdio` and connects VS Code to it.
"use strict";
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("warscribe");
  const command = config.get("server.command", "warscribe");
  const debounce = String(config.get("server.debounce", 0.3));
  const run = { command, args: ["lsp", "--debounce", debounce], transport: TransportKind.stdio };
  client = new LanguageClient("warscribe", "warscribe", { run, debug: run }, {
    documentSelector: [{ scheme: "file", language: "warscribe" }],
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/*.rules") },
  });
  context.subscriptions.push(vscode.commands.registerCommand("warscribe.restartServer", () => client.restart()));
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
