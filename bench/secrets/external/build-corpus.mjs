// Builds the external labelled corpus of bench/secrets-external.sh from other scanners' public test
// data, at pinned commits: trufflehog's detector pattern tests (each table row's `input`, a secret when
// its `want` list is not empty) and Nosey Parker's rule examples (`examples` of a rule in the `secret`
// category are secrets, `negative_examples` are not). gitleaks', secretlint's and detect-secrets' test
// data stay out, so that they remain an independent check.
//
// Labels are the source's own: this script never decides what is a secret. It only leaves cases out,
// each counted by reason in labels.json: rows it cannot evaluate without Go, examples of Nosey Parker
// rules that are not `secret` (identifiers, public tokens), negative examples the source marks as
// wrongly unmatched (FIXME, "would be nice if the following matched"), negatives that hold a value the
// same source calls a secret in another test, and exact duplicates.
//
// Usage: node build-corpus.mjs <out dir>
//   TRUFFLEHOG_GIT / NOSEYPARKER_GIT: a git directory already holding the pinned commit (else the
//   repository is cloned from GitHub into bench/out/sources/).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseDocument } from "yaml";
import { tableRows } from "./go-literals.mjs";
import { npRegex } from "./np-regex.mjs";
import { CLAIMED, NOSEYPARKER, TRUFFLEHOG } from "./families.mjs";

export const SOURCES = {
  trufflehog: {
    url: "https://github.com/trufflesecurity/trufflehog.git",
    commit: "3ab759fef4bb5935d4fe9ac68b503d05346b8364",
    env: "TRUFFLEHOG_GIT",
  },
  noseyparker: {
    url: "https://github.com/praetorian-inc/noseyparker.git",
    commit: "2e6e7f36ce36619852532bbe698d8cb7a26d2da7",
    env: "NOSEYPARKER_GIT",
  },
};

const here = dirname(fileURLToPath(import.meta.url));
const cache = join(here, "..", "..", "out", "sources");

const git = (dir, ...args) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });

/** A git directory holding the source's pinned commit: the one named by its env var, or a clone. */
function sourceGit(name) {
  const s = SOURCES[name];
  const given = process.env[s.env];
  const dir = given ?? join(cache, `${name}.git`);
  if (!given && !existsSync(dir)) {
    mkdirSync(cache, { recursive: true });
    execFileSync("git", ["clone", "--bare", "--filter=blob:none", "--quiet", s.url, dir], { stdio: "inherit" });
  }
  try {
    git(dir, "cat-file", "-e", `${s.commit}^{commit}`);
  } catch {
    if (given) throw new Error(`${s.env}=${given} does not hold ${name} commit ${s.commit}`);
    git(dir, "fetch", "--quiet", "origin", s.commit);
  }
  return dir;
}

const files = (dir, commit, under) => git(dir, "ls-tree", "-r", "--name-only", commit, under).split("\n").filter(Boolean);

/** trufflehog's rows: [detector path, row] for every `input`/`want` table row of a detector's tests. */
function trufflehogRows(dir, commit) {
  const out = [];
  const skipped = {};
  for (const f of files(dir, commit, "pkg/detectors")) {
    if (!f.endsWith("_test.go") || f.includes("integration")) continue;
    const detector = dirname(f).replace(/^pkg\/detectors\/?/, "");
    if (detector === "") continue;
    for (const row of tableRows(git(dir, "show", `${commit}:${f}`))) {
      if (row.skip) skipped[`trufflehog: ${row.skip}`] = (skipped[`trufflehog: ${row.skip}`] ?? 0) + 1;
      else out.push({ detector, row });
    }
  }
  return { out, skipped };
}

const WRONGLY_UNMATCHED = /FIXME|would be nice if|unfortunately doesn't match|should not actually match/i;

/**
 * Nosey Parker's examples: {rule, text, secret, k} per example; the ones left out, counted. A negative
 * example of one rule that another of its `secret` rules matches is a secret by the source's own word
 * (the Slack rules list each other's tokens as negatives), so it is left out too.
 */
function noseyparkerExamples(dir, commit) {
  const out = [];
  const skipped = {};
  const skip = (why) => (skipped[`noseyparker: ${why}`] = (skipped[`noseyparker: ${why}`] ?? 0) + 1);
  const rules = [];
  for (const f of files(dir, commit, "crates/noseyparker/data/default/builtin/rules")) {
    if (!f.endsWith(".yml") && !f.endsWith(".yaml")) continue;
    rules.push(...(parseDocument(git(dir, "show", `${commit}:${f}`)).get("rules")?.items ?? []));
  }
  const secretRules = rules
    .filter((r) => (r.get("categories")?.toJSON?.() ?? []).includes("secret"))
    .map((r) => ({ id: String(r.get("id")), re: npRegex(String(r.get("pattern"))) }));
  {
    for (const rule of rules) {
      const id = String(rule.get("id"));
      const categories = (rule.get("categories")?.toJSON?.() ?? []).map(String);
      for (const key of ["examples", "negative_examples"]) {
        const seq = rule.get(key, true);
        if (!seq?.items) continue;
        const secret = key === "examples";
        seq.items.forEach((item, k) => {
          const note = `${seq.commentBefore ?? ""} ${item.commentBefore ?? ""}`;
          if (WRONGLY_UNMATCHED.test(note)) return skip(`${key} the rule file marks as wrongly (un)matched`);
          if (secret && !categories.includes("secret")) return skip(`examples of a rule not in the secret category (${id})`);
          const text = String(item.toJSON());
          if (!secret && secretRules.some((r) => r.id !== id && r.re.test(text)))
            return skip("negative examples another of its secret rules matches");
          out.push({ rule: id, text, secret, k });
        });
      }
    }
  }
  return { out, skipped };
}

function main() {
  const outDir = process.argv[2];
  if (!outDir) throw new Error("usage: node build-corpus.mjs <out dir>");
  const th = sourceGit("trufflehog");
  const np = sourceGit("noseyparker");
  const t = trufflehogRows(th, SOURCES.trufflehog.commit);
  const n = noseyparkerExamples(np, SOURCES.noseyparker.commit);
  const skipped = { ...t.skipped, ...n.skipped };
  const count = (why) => (skipped[why] = (skipped[why] ?? 0) + 1);

  // Every value a source calls a secret: a negative holding one is a positive of another detector.
  const secrets = new Set();
  for (const { row } of t.out) for (const w of row.want) if (w.length >= 8) secrets.add(w);

  const cases = [];
  for (const { detector, row } of t.out) {
    const family = TRUFFLEHOG[detector] ?? "other";
    cases.push({
      source: "trufflehog",
      origin: detector,
      name: row.name,
      family,
      text: row.input,
      secret: row.want.length > 0,
      values: row.want,
    });
  }
  for (const e of n.out) {
    const family = NOSEYPARKER[e.rule] ?? "other";
    cases.push({
      source: "noseyparker",
      origin: e.rule,
      name: `${e.secret ? "example" : "negative_example"} ${e.k + 1}`,
      family,
      text: e.text,
      secret: e.secret,
      values: [],
    });
  }

  rmSync(outDir, { recursive: true, force: true });
  const labels = [];
  const seen = new Map();
  let k = 0;
  for (const c of cases) {
    if (!c.secret && [...secrets].some((s) => c.text.includes(s))) {
      count(`${c.source}: negatives holding a value the source calls a secret elsewhere`);
      continue;
    }
    const key = `${c.secret}\0${c.text}`;
    if (seen.has(key)) {
      count(`${c.source}: exact duplicates`);
      continue;
    }
    seen.set(key, true);
    const file = join(c.source, c.origin.replace(/[^A-Za-z0-9_.-]+/g, "_"), `${String(++k).padStart(4, "0")}.txt`);
    mkdirSync(join(outDir, dirname(file)), { recursive: true });
    writeFileSync(join(outDir, file), c.text.endsWith("\n") ? c.text : `${c.text}\n`);
    labels.push({
      file,
      source: c.source,
      origin: c.origin,
      name: c.name,
      family: c.family,
      claimed: CLAIMED.has(c.family),
      expect: c.secret ? "secret" : "none",
      values: c.values.filter((v) => v.length >= 8),
    });
  }
  const meta = {
    sources: Object.fromEntries(Object.entries(SOURCES).map(([name, s]) => [name, { url: s.url, commit: s.commit }])),
    left_out: skipped,
    cases: labels.length,
  };
  writeFileSync(join(outDir, "labels.json"), JSON.stringify({ meta, labels }, null, 1));
  const pos = labels.filter((l) => l.expect === "secret").length;
  console.error(`corpus: ${labels.length} cases (${pos} secrets, ${labels.length - pos} negatives) in ${outDir}`);
  for (const [why, n] of Object.entries(skipped).sort()) console.error(`  left out: ${n} ${why}`);
}

main();
