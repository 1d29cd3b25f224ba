//! Full matches of `gdl-codegen serve` against GGP-Base's game server and
//! sample players (`../shared/tools/ggp-server/`), start clock 10 s, play
//! clock 3 s, one after another: tic-tac-toe, connect four, a game of
//! simultaneous moves, a puzzle and a game that compiles only lifted. Each
//! match must complete with no TIMEOUT, ILLEGAL or CONNECTION_ERROR for our
//! roles. Needs Java 17 (`.ci/run` installs it where it is missing).

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One match at a time: the machine's cores are the players' clocks.
static SERIAL: Mutex<()> = Mutex::new(());

/// A child process killed when the test ends, however it ends.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

fn tools() -> PathBuf {
    shared().join("tools/ggp-server")
}

/// Fails with the way to get Java when it is missing: never skipped.
fn require_java() {
    let found = Command::new("java")
        .arg("-version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        found,
        "java not found: the GGP-Base server needs Java 17 \
         (apt-get update && apt-get install -y default-jre-headless; .ci/run does this)"
    );
}

fn free_port() -> u16 {
    let l = TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("its address").port()
}

fn wait_listening(port: u16, what: &str) {
    let until = Instant::now() + Duration::from_secs(60);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < until,
            "{what} does not listen on port {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Our player, one search thread (the other core is the opponent's), its
/// log in `dir`.
fn our_player(dir: &PathBuf) -> (Killed, u16) {
    let port = free_port();
    let stderr = std::fs::File::create(dir.join("serve.stderr")).expect("a log file");
    let child = Command::new(env!("CARGO_BIN_EXE_gdl-codegen"))
        .env(gdl_codegen::store::CACHE_ENV, cache_dir())
        .args(["serve", "--bind", "127.0.0.1", "--threads", "1", "--port"])
        .arg(port.to_string())
        .arg("--log")
        .arg(dir)
        .stderr(stderr)
        .spawn()
        .expect("gdl-codegen serve starts");
    let child = Killed(child);
    wait_listening(port, "gdl-codegen serve");
    (child, port)
}

/// The cache of compiled games our player builds into: the tests' own.
fn cache_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("player_cache")
}

/// The cache with the runtime built, as on a player's machine: a game
/// built and loaded there first (tic-tac-toe), at full speed.
fn runtime_built_first() {
    use gdl_codegen::host::loaded::{self, LoadOptions};
    let path = shared().join("games/ggp-repository-base/ticTacToe.kif");
    let rules = std::fs::read(&path).expect("ticTacToe.kif");
    let options = LoadOptions {
        cache_dir: Some(cache_dir()),
        ..LoadOptions::default()
    };
    loaded::load("warm-up", &rules, &options).expect("tic-tac-toe builds and loads");
}

/// One of GGP-Base's sample players, once it says it listens.
fn ggp_player(kind: &str) -> (Killed, u16) {
    let port = free_port();
    let mut child = Command::new(tools().join("start-player"))
        .arg(port.to_string())
        .arg(kind)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start-player starts");
    let stdout = child.stdout.take().expect("its output");
    let child = Killed(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("start-player prints READY");
    assert!(line.starts_with("READY"), "start-player said {line:?}");
    wait_listening(port, kind);
    (child, port)
}

/// Plays `game` (under `../shared/games/`) with our player in the roles
/// marked `true`, GGP-Base's random player in the others; checks that it
/// completes with no fault of ours and that our log has every turn.
fn play(game: &str, ours: &[bool]) -> String {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    require_java();
    let name = game.rsplit('/').next().unwrap().trim_end_matches(".kif");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("player_matches_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a match directory");
    let (_us, our_port) = our_player(&dir);
    let mut others = Vec::new();
    let mut args: Vec<String> = vec![
        dir.join("matches").display().to_string(),
        shared().join("games").join(game).display().to_string(),
        "10".into(),
        "3".into(),
    ];
    for (i, &mine) in ours.iter().enumerate() {
        let (port, who) = if mine {
            (our_port, format!("ours{i}"))
        } else {
            let (child, port) = ggp_player("random");
            others.push(child);
            (port, format!("random{i}"))
        };
        args.extend(["127.0.0.1".to_owned(), port.to_string(), who]);
    }
    let out = Command::new(tools().join("run-match"))
        .args(&args)
        .output()
        .expect("run-match runs");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let log = std::fs::read_to_string(dir.join("serve.stderr")).unwrap_or_default();
    assert!(
        text.contains("COMPLETED"),
        "{game} did not complete:\n{text}\n{log}"
    );
    let roles = roles(&text);
    for (role, _) in roles.iter().zip(ours).filter(|(_, &mine)| mine) {
        for fault in ["TIMEOUT", "ILLEGAL", "CONNECTION_ERROR"] {
            let line = format!("{fault} {role}");
            assert!(
                !text
                    .lines()
                    .any(|l| l == line || l.starts_with(&format!("{line} "))),
                "{game}: {line}\n{text}\n{log}"
            );
        }
    }
    assert!(
        log.contains("\"summary\":\"stop\""),
        "{game}: no summary in the log:\n{log}"
    );
    assert!(
        !log.contains("\"late\":true"),
        "{game}: a late reply:\n{log}"
    );
    log
}

/// The role names of `ROLES [a, b]`.
fn roles(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("ROLES ["))
        .expect("a ROLES line");
    line.trim_end_matches(']')
        .split(", ")
        .map(str::to_owned)
        .collect()
}

#[test]
fn tictactoe_against_random() {
    play("ggp-repository-base/ticTacToe.kif", &[true, false]);
}

/// The runtime built in the cache first, connect four is compiled in the
/// background while the match runs (niced, one build job) and the compiled
/// game plays the later turns.
#[test]
fn connect_four_against_random() {
    runtime_built_first();
    let log = play("ggp-repository-base/connectFour.kif", &[false, true]);
    let last_turn = (log.lines())
        .rfind(|l| l.contains("\"turn\":"))
        .unwrap_or_default();
    assert!(
        last_turn.contains("\"reasoner\":\"compiled\""),
        "the compiled game does not play the last turn:\n{log}"
    );
}

/// Simultaneous moves: both roles move every turn.
#[test]
fn roshambo_against_random() {
    play("ggp-repository-base/roshambo2.kif", &[true, false]);
}

/// A puzzle: the best line found is followed to the goal of 100.
#[test]
fn buttons_puzzle_is_solved() {
    let log = play("ggp-repository-base/buttons.kif", &[true]);
    assert!(log.contains("\"goals\":[100]"), "{log}");
}

/// gt_attrition compiles only lifted (the ground program is over `auto`'s
/// budget): the player starts on the interpreter.
#[test]
fn a_lifted_only_game_against_random() {
    play("ggp-repository-base/gt_attrition.kif", &[false, true]);
}
