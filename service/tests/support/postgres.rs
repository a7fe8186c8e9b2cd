//! A throwaway PostgreSQL cluster for tests: `initdb` into a temporary folder, the server on a free
//! loopback port with its socket in that folder, one database per test. It is started once per
//! test binary and stops when the binary exits (the kernel signals it when its parent thread
//! ends), and its folder is removed then.
//!
//! Outside CI, when no PostgreSQL can be started here, [`database`] says why and returns `None`
//! (the test is skipped); with `CI=true` it panics instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

pub struct Cluster {
    pub port: u16,
    socket_dir: PathBuf,
    bin: PathBuf,
}

/// The uid and gid the server runs as: initdb and postgres refuse to run as root.
fn server_user() -> Option<(u32, u32)> {
    // SAFETY: geteuid has no preconditions.
    (unsafe { libc::geteuid() } == 0).then_some((65534, 65534))
}

/// The newest installed server's binaries (Debian's layout, or the PATH's).
fn binaries() -> Result<PathBuf, String> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .map_err(|e| format!("/usr/lib/postgresql: {e} (apt-get install postgresql)"))?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            bin.join("postgres").exists().then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|(_, bin)| bin)
        .ok_or_else(|| "no server under /usr/lib/postgresql/*/bin".to_owned())
}

fn as_server_user(command: &mut Command) -> &mut Command {
    use std::os::unix::process::CommandExt;
    if let Some((uid, gid)) = server_user() {
        command.uid(uid).gid(gid);
    }
    command
}

fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let out = command
        .output()
        .map_err(|e| format!("{what} did not start: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{what} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// A certificate authority (`ca.crt`) and the server's certificate for 127.0.0.1 signed by it,
/// so tests can connect with `sslmode=verify-full`. Made with the `openssl` command, as the
/// server's user (the server refuses a key others may read).
fn certificates(dir: &Path) -> Result<(), String> {
    let openssl = |args: &[&str], what: &str| {
        run(
            as_server_user(Command::new("openssl").current_dir(dir).args(args)),
            what,
        )
    };
    openssl(
        &[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=asset-alerting test CA",
            "-keyout",
            "ca.key",
            "-out",
            "ca.crt",
        ],
        "openssl (CA)",
    )?;
    openssl(
        &[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
        ],
        "openssl (server key)",
    )?;
    std::fs::write(
        dir.join("server.ext"),
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n",
    )
    .map_err(|e| e.to_string())?;
    openssl(
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.crt",
        ],
        "openssl (server certificate)",
    )
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Cluster {
    fn start() -> Result<Cluster, String> {
        let bin = binaries()?;
        let dir = tempfile::Builder::new()
            .prefix("pg-test-")
            .tempdir()
            .map_err(|e| e.to_string())?
            .keep();
        if let Some((uid, gid)) = server_user() {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
        }
        let data = dir.join("data");
        certificates(&dir)?;
        run(
            as_server_user(
                Command::new(bin.join("initdb"))
                    .args(["--auth=trust", "--username=postgres", "--encoding=UTF8"])
                    .args(["--locale=C", "--no-sync"])
                    .arg("-D")
                    .arg(&data),
            ),
            "initdb",
        )?;
        let mut last = String::new();
        for _ in 0..3 {
            let port = free_port();
            match Self::serve(&bin, &dir, port) {
                Ok(()) => {
                    return Ok(Cluster {
                        port,
                        socket_dir: dir.clone(),
                        bin,
                    });
                }
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Starts the server from a thread that lives as long as the test binary: the server's shell
    /// gets SIGTERM when that thread ends, stops the server (fast shutdown) and removes `dir`.
    fn serve(bin: &Path, dir: &Path, port: u16) -> Result<(), String> {
        let script = r#"
            "$0/postgres" -D "$1/data" -k "$1" -p "$2" -c listen_addresses=127.0.0.1 \
                -c ssl=on -c ssl_cert_file="$1/server.crt" -c ssl_key_file="$1/server.key" \
                -c fsync=off -c synchronous_commit=off -c full_page_writes=off \
                -c max_connections=300 -c shared_buffers=64MB > "$1/server.log" 2>&1 &
            server=$!
            trap 'kill -INT $server' TERM INT
            wait $server; wait $server
            rm -rf "$1"
        "#;
        let mut command = Command::new("sh");
        command
            .args(["-c", script])
            .arg(bin)
            .arg(dir)
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        as_server_user(&mut command);
        // SAFETY: prctl only sets a flag of the new process; it allocates nothing.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        let (started, spawned) = std::sync::mpsc::channel();
        std::thread::spawn(move || match command.spawn() {
            Ok(mut child) => {
                let _ = started.send(Ok(()));
                let _ = child.wait();
            }
            Err(e) => {
                let _ = started.send(Err(e.to_string()));
            }
        });
        spawned
            .recv()
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("the server did not start: {e}"))?;
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            let ready = Command::new(bin.join("pg_isready"))
                .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-q"])
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return Ok(());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let log = std::fs::read_to_string(dir.join("server.log")).unwrap_or_default();
        Err(format!(
            "the server did not accept connections on port {port}: {log}"
        ))
    }

    /// Runs one SQL statement as the superuser in the maintenance database.
    fn admin(&self, sql: &str, what: &str) {
        run(
            Command::new(self.bin.join("psql"))
                .arg("-h")
                .arg(&self.socket_dir)
                .args([
                    "-p",
                    &self.port.to_string(),
                    "-U",
                    "postgres",
                    "-d",
                    "postgres",
                ])
                .args(["-v", "ON_ERROR_STOP=1", "-qc", sql]),
            what,
        )
        .unwrap();
    }

    /// A new, empty database; its URL.
    pub fn create_database(&self) -> String {
        let name = format!("test_{}", uuid::Uuid::new_v4().simple());
        self.admin(&format!("CREATE DATABASE {name}"), "CREATE DATABASE");
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Drops the database at `url`, closing the connections of its clients (the database
    /// becomes unreachable to them, as when a server goes away).
    pub fn drop_database(&self, url: &str) {
        let name = url
            .rsplit('/')
            .next()
            .expect("a database URL ends in its name");
        self.admin(
            &format!("DROP DATABASE {name} WITH (FORCE)"),
            "DROP DATABASE",
        );
    }

    /// The authority that signed the server's certificate (for `sslrootcert`).
    pub fn ca_file(&self) -> PathBuf {
        self.socket_dir.join("ca.crt")
    }

    /// The data of the database at `url`, as `pg_dump` writes it.
    pub fn dump(&self, url: &str) -> Vec<u8> {
        let out = Command::new(self.bin.join("pg_dump"))
            .args(["--data-only", "--dbname", url])
            .output()
            .expect("pg_dump starts");
        assert!(
            out.status.success(),
            "pg_dump: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }
}

/// The cluster of this test binary, started on first use.
pub fn cluster() -> Option<&'static Cluster> {
    static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
    match CLUSTER.get_or_init(Cluster::start) {
        Ok(cluster) => Some(cluster),
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI needs PostgreSQL, and it could not be started: {why}")
        }
        Err(why) => {
            eprintln!("SKIPPED: PostgreSQL could not be started here ({why})");
            None
        }
    }
}

/// A new database on the test cluster, or `None` (with the reason printed) when there is none.
pub fn database() -> Option<String> {
    cluster().map(Cluster::create_database)
}
