// Tokenise files with the extension's TextMate grammar (vscode-textmate + vscode-oniguruma),
// as VS Code does, and print JSON: {file: [[line, start, end, [scopes...]], ...]}.
// Used by tests/test_lsp.py to check that the grammar agrees with the Pygments lexer.
"use strict";
const fs = require("fs");
const path = require("path");
const vsctm = require("vscode-textmate");
const oniguruma = require("vscode-oniguruma");

const here = path.resolve(__dirname, "..");
const wasm = fs.readFileSync(path.join(here, "node_modules/vscode-oniguruma/release/onig.wasm")).buffer;

async function main(files) {
  await oniguruma.loadWASM(wasm);
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (sources) => new oniguruma.OnigScanner(sources),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async () => vsctm.parseRawGrammar(
      fs.readFileSync(path.join(here, "syntaxes/warscribe.tmLanguage.json"), "utf8"), "grammar.json"),
  });
  const grammar = await registry.loadGrammar("source.warscribe");
  const out = {};
  for (const file of files) {
    const lines = fs.readFileSync(file, "utf8").split("\n");
    let stack = vsctm.INITIAL;
    const tokens = [];
    lines.forEach((line, n) => {
      const r = grammar.tokenizeLine(line, stack);
      for (const t of r.tokens) tokens.push([n, t.startIndex, Math.min(t.endIndex, line.length), t.scopes]);
      stack = r.ruleStack;
    });
    out[file] = tokens;
  }
  process.stdout.write(JSON.stringify(out));
}

main(process.argv.slice(2)).catch((e) => { console.error(e); process.exit(1); });
