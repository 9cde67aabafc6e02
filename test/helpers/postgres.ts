// A real PostgreSQL server for the `usage --litellm-db` tests: Debian's postgresql package (which
// .ci/run installs), a fresh cluster in a temp folder, on a free 127.0.0.1 port and a private socket,
// stopped and removed at the end. PostgreSQL refuses to run as root, so as root the server and psql run
// as the `postgres` user (runuser). No PostgreSQL is a failure, not a skip — unless the machine says
// it has none with KVGATE_NO_POSTGRES=1 (which .ci/run never sets).
//
//   const pg = await startPostgres();
//   pg.psql("CREATE DATABASE x");            // as the superuser, over the socket
//   pg.url("kvgate", "secret", "litellm");   // postgresql://kvgate:secret@127.0.0.1:PORT/litellm
//   pg.stop();
import { execFileSync, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const NO_POSTGRES = process.env.KVGATE_NO_POSTGRES === "1";

export interface PgServer {
  port: number;
  url(user: string, password: string, db: string): string;
  /** Runs SQL as the superuser over the socket; `input` is fed to stdin (for \copy ... FROM STDIN). */
  psql(sql: string, opts?: { db?: string; input?: string }): string;
  /** The same, left running (a session that holds a lock while a test runs); kill() ends it. */
  spawnPsql(sql: string, opts?: { db?: string }): ChildProcess;
  stop(): void;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (versions[0] === undefined) {
    throw new Error(
      "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): apt-get install -y postgresql, as .ci/run does; set KVGATE_NO_POSTGRES=1 only on a machine that cannot have it",
    );
  }
  return join(root, versions[0], "bin");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export async function startPostgres(): Promise<PgServer> {
  const bin = binDir();
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "kvgate-pg-"));
  const data = join(dir, "data");
  if (root) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const as = (cmd: string, args: string[], input?: string): string => {
    const [file, argv] = root ? ["runuser", ["-u", "postgres", "--", cmd, ...args]] : [cmd, args];
    const r = spawnSync(file, argv, {
      encoding: "utf8",
      input: input ?? "",
      cwd: dir,
      env: { ...process.env, LC_ALL: "C.UTF-8", PGTZ: "UTC" },
    });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
    return r.stdout;
  };
  as(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
  ]);
  const port = await freePort();
  // Durability off: a test cluster is thrown away, and fsync on a shared CI disk is most of its cost.
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c timezone=UTC`;
  as(join(bin, "pg_ctl"), ["-D", data, "-o", opts, "-l", join(dir, "server.log"), "-w", "-t", "60", "start"]);
  let stopped = false;
  const psqlArgs = (sql: string, db: string): string[] => [
    "-h",
    dir,
    "-p",
    String(port),
    "-U",
    "postgres",
    "-d",
    db,
    "-v",
    "ON_ERROR_STOP=1",
    "-X",
    "-q",
    "-A",
    "-t",
    "-c",
    sql,
  ];
  const server: PgServer = {
    port,
    url: (user, password, db) => `postgresql://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}/${db}`,
    psql: (sql, o = {}) => as(join(bin, "psql"), psqlArgs(sql, o.db ?? "postgres"), o.input),
    spawnPsql: (sql, o = {}) => {
      const argv = [join(bin, "psql"), ...psqlArgs(sql, o.db ?? "postgres")];
      const [file, args] = root ? ["runuser", ["-u", "postgres", "--", ...argv]] : [argv[0] as string, argv.slice(1)];
      return spawn(file, args, { cwd: dir, stdio: "ignore", env: { ...process.env, LC_ALL: "C.UTF-8", PGTZ: "UTC" } });
    },
    stop: () => {
      if (stopped) return;
      stopped = true;
      try {
        as(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return server;
}
