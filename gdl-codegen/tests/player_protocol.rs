//! The GGP player's protocol, case by case, through a scripted HTTP client
//! against the server in-process: INFO and ABORT during a search, a PLAY
//! that supersedes a late one, START during a match (`busy`) and after a
//! vanished one, an unknown match id, rules that do not check, PREVIEW,
//! upper-case messages; the background work (grounding, the compiled build
//! and its cargo) cancelled by ABORT, PREVIEW's build joined or found by
//! START, and the steps before a search deferred when no time is left.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gdl_codegen::player::{serve, Player, PlayerConfig, Reasoner, SearchConfig};

/// How the tests' players play: one thread, a small tree.
fn config(grace: Duration, log: Option<&Path>) -> PlayerConfig {
    PlayerConfig {
        reasoner: Reasoner::Auto,
        search: SearchConfig {
            threads: 1,
            tree_bytes: 64 << 20,
            seed: 1,
        },
        log_dir: log.map(Path::to_path_buf),
        vanish_grace: grace,
        cache_dir: None,
    }
}

/// A player on a free port of the loopback, serving on its own thread.
fn server(grace: Duration, log: Option<&Path>) -> SocketAddr {
    serve_with(config(grace, log))
}

fn serve_with(config: PlayerConfig) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = listener.local_addr().expect("its address");
    let player = Arc::new(Player::new(config));
    std::thread::spawn(move || serve(listener, player));
    addr
}

/// POSTs `body` as GGP-Base does and reads the reply to the end of the
/// stream (as Dresden's manager does): the player must close the
/// connection, and its `Content-Length` must match.
fn post(addr: SocketAddr, body: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("the player accepts");
    write!(
        s,
        "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("the request is sent");
    let mut text = String::new();
    s.read_to_string(&mut text)
        .expect("the reply is read to its end");
    let (head, reply) = text.split_once("\r\n\r\n").expect("headers, then a body");
    let length = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .expect("a Content-Length header");
    assert_eq!(length.parse::<usize>().unwrap(), reply.len(), "{text}");
    reply.to_owned()
}

/// `post` on its own thread, with the time the reply arrived.
fn post_later(addr: SocketAddr, body: String) -> JoinHandle<(String, Instant)> {
    std::thread::spawn(move || {
        let reply = post(addr, &body);
        (reply, Instant::now())
    })
}

/// The rules of GGP-Base's tic-tac-toe as a START carries them.
fn tictactoe() -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/games/ggp-repository-base/ticTacToe.kif");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    format!("({text})")
}

fn start(id: &str, role: &str, start_clock: u32, play_clock: u32) -> String {
    format!(
        "(START {id} {role} {} {start_clock} {play_clock})",
        tictactoe()
    )
}

/// The cell of a `(mark i j)` reply (in the rules' case: an upper-case
/// manager gets upper-case moves).
fn cell(reply: &str) -> (u32, u32) {
    let lower = reply.to_ascii_lowercase();
    let inner = lower
        .trim()
        .strip_prefix("(mark ")
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("not a mark: {reply}"));
    let mut it = inner.split_whitespace().map(|n| n.parse::<u32>().unwrap());
    (it.next().unwrap(), it.next().unwrap())
}

#[test]
fn info_preview_and_bad_messages() {
    let addr = server(Duration::from_secs(5), None);
    assert!(post(addr, "(INFO)").contains("(status available)"));
    assert!(post(addr, "(info)").contains("(status available)"));
    let preview = format!("(PREVIEW {} 5)", tictactoe());
    assert_eq!(post(addr, &preview), "ready");
    let reply = post(addr, "(preview ((role x) (<= (legal x a) (true y))) 5)");
    assert!(reply.starts_with("error: "), "{reply}");
    for bad in ["(FOO bar)", "(start", "", "(play)"] {
        let reply = post(addr, bad);
        assert!(reply.starts_with("error: "), "{bad:?}: {reply}");
    }
    assert!(
        post(addr, "(INFO)").contains("available"),
        "the server survived"
    );
}

#[test]
fn rules_that_do_not_check_are_refused_at_start() {
    let addr = server(Duration::from_secs(5), None);
    let reply = post(
        addr,
        "(START m xplayer ((role xplayer) (init (cell ?x))) 2 1)",
    );
    assert!(reply.starts_with("error: "), "{reply}");
    assert!(reply.contains("not valid GDL"), "{reply}");
    assert!(
        post(addr, "(INFO)").contains("available"),
        "no match was started"
    );
    let reply = post(addr, &start("m", "nobody", 1, 1));
    assert!(reply.contains("no role nobody"), "{reply}");
    assert!(post(addr, "(INFO)").contains("available"));
}

/// A match written in upper case as Dresden's manager writes it, from
/// START to STOP, every reply in time, the log holding each turn and the
/// summary.
#[test]
fn an_upper_case_match_is_played_and_logged() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("player_protocol_log");
    let _ = std::fs::remove_dir_all(&dir);
    let addr = server(Duration::from_secs(5), Some(&dir));
    let start_msg = start("UPPER", "XPLAYER", 1, 1).to_ascii_uppercase();
    let sent = Instant::now();
    assert_eq!(post(addr, &start_msg), "ready");
    assert!(
        sent.elapsed() < Duration::from_secs(1),
        "START answered in its clock"
    );
    let mut taken = Vec::new();
    let mut last = "NIL".to_owned();
    // Two rounds: no line of three yet, so every turn has moves to search.
    for turn in 0..2 {
        let sent = Instant::now();
        let ours = post(addr, &format!("(PLAY UPPER {last})"));
        assert!(
            sent.elapsed() < Duration::from_secs(1),
            "PLAY answered in its clock"
        );
        let mine = cell(&ours);
        assert!(!taken.contains(&mine), "turn {turn}: {ours} is taken");
        taken.push(mine);
        let sent = Instant::now();
        let reply = post(addr, &format!("(PLAY UPPER ({ours} NOOP))"));
        assert!(reply.eq_ignore_ascii_case("noop"), "{reply}");
        assert!(sent.elapsed() < Duration::from_secs(1));
        let theirs = (1..=3)
            .flat_map(|i| (1..=3).map(move |j| (i, j)))
            .find(|c| !taken.contains(c))
            .unwrap();
        taken.push(theirs);
        last = format!("(NOOP (MARK {} {}))", theirs.0, theirs.1);
    }
    assert_eq!(post(addr, &format!("(STOP UPPER {last})")), "done");
    assert!(post(addr, "(INFO)").contains("available"));
    let log = std::fs::read_to_string(dir.join("UPPER.jsonl")).expect("the match log");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let turns = lines.iter().filter(|l| l.get("turn").is_some()).count();
    assert_eq!(turns, 5, "START and four PLAYs:\n{log}");
    for l in lines.iter().filter(|l| l.get("turn").is_some()) {
        assert!(l["simulations"].as_u64().unwrap() > 0, "{l}");
        assert_eq!(l["late"], false, "{l}");
        assert!(l["margin_ms"].as_f64().is_some(), "{l}");
    }
    // Last but for the background work's lines, which may follow (a build
    // cancelled by STOP says so once it has stopped).
    let summary = lines
        .iter()
        .rfind(|l| l.get("background").is_none())
        .unwrap();
    assert_eq!(summary["summary"], "stop", "{log}");
    assert_eq!(summary["late_replies"], 0, "{log}");
}

/// INFO is answered while START searches, ABORT while PLAY searches; the
/// aborted PLAY still gets its reply, and the player is free again.
#[test]
fn info_and_abort_during_a_search() {
    let addr = server(Duration::from_secs(5), None);
    let searching = post_later(addr, start("m", "xplayer", 3, 3));
    std::thread::sleep(Duration::from_millis(300));
    assert!(post(addr, "(INFO)").contains("(status busy)"));
    assert!(
        !searching.is_finished(),
        "INFO was answered during START's search"
    );
    assert_eq!(searching.join().unwrap().0, "ready");

    let sent = Instant::now();
    let searching = post_later(addr, "(PLAY m NIL)".to_owned());
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(post(addr, "(ABORT m)"), "aborted");
    let (reply, at) = searching.join().unwrap();
    cell(&reply);
    assert!(
        at - sent < Duration::from_secs(3),
        "the aborted PLAY answered in its clock"
    );
    assert!(post(addr, "(INFO)").contains("available"));
    assert_eq!(
        post(addr, &start("n", "oplayer", 1, 1)),
        "ready",
        "a new match starts"
    );
}

/// A PLAY arriving while the previous one still searches (the manager gave
/// up on it) stops that search at once and is answered in the new state.
#[test]
fn a_new_play_supersedes_a_late_one() {
    let addr = server(Duration::from_secs(5), None);
    assert_eq!(post(addr, &start("m", "oplayer", 1, 4)), "ready");
    let first_sent = Instant::now();
    let late = post_later(addr, "(PLAY m NIL)".to_owned());
    std::thread::sleep(Duration::from_millis(300));
    let reply = post(addr, "(PLAY m ((mark 1 1) noop))");
    assert_ne!(
        cell(&reply),
        (1, 1),
        "answered in the state after (mark 1 1)"
    );
    let (late_reply, late_at) = late.join().unwrap();
    assert_eq!(late_reply, "noop");
    assert!(
        late_at - first_sent < Duration::from_secs(2),
        "the superseded search stopped when the new PLAY came, not at its clock"
    );
}

#[test]
fn start_during_a_match_is_busy_and_after_a_vanished_one_ready() {
    let addr = server(Duration::from_millis(200), None);
    assert_eq!(post(addr, &start("first", "xplayer", 1, 1)), "ready");
    assert_eq!(post(addr, &start("second", "xplayer", 1, 1)), "busy");
    // Silent for its clock and the grace: the first match's manager is gone.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(post(addr, "(INFO)").contains("available"));
    assert_eq!(post(addr, &start("second", "xplayer", 1, 1)), "ready");
    let reply = post(addr, "(PLAY first NIL)");
    assert!(
        reply.starts_with("error: unknown match id first"),
        "{reply}"
    );
    cell(&post(addr, "(PLAY second NIL)"));
}

#[test]
fn an_unknown_match_id_gets_an_error_and_changes_nothing() {
    let addr = server(Duration::from_secs(5), None);
    let reply = post(addr, "(PLAY nomatch NIL)");
    assert!(
        reply.starts_with("error: unknown match id nomatch; no match is on"),
        "{reply}"
    );
    assert_eq!(post(addr, &start("m", "xplayer", 1, 1)), "ready");
    for msg in [
        "(PLAY other NIL)",
        "(STOP other (noop noop))",
        "(ABORT other)",
    ] {
        let reply = post(addr, msg);
        assert!(
            reply.starts_with("error: unknown match id other; the match on is m"),
            "{msg}: {reply}"
        );
    }
    assert!(post(addr, "(INFO)").contains("busy"));
    cell(&post(addr, "(PLAY m NIL)"));
    assert_eq!(post(addr, "(ABORT m)"), "aborted");
}

/// A start clock too short to wait for the propnet: the interpreter plays
/// at once, and the propnet built meanwhile (or the compiled game, loaded
/// after it) takes over at a later PLAY, the moves so far replayed on it.
#[test]
fn the_interpreter_plays_until_the_propnet_is_ready() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("player_protocol_switch");
    let _ = std::fs::remove_dir_all(&dir);
    let addr = server(Duration::from_secs(5), Some(&dir));
    // 0.1 s is under the margin's floor (0.15 s): START replies at once.
    let start_msg = format!("(START sw xplayer {} 0.1 1)", tictactoe());
    assert_eq!(post(addr, &start_msg), "ready");
    let first = post(addr, "(PLAY sw NIL)");
    cell(&first);
    for reply in [
        format!("(PLAY sw ({first} noop))"),
        "(PLAY sw (noop (mark 3 3)))".to_owned(),
    ] {
        post(addr, &reply);
    }
    assert_eq!(post(addr, "(ABORT sw)"), "aborted");
    let log = std::fs::read_to_string(dir.join("sw.jsonl")).expect("the match log");
    let lines: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reasoner = |turn: u64| {
        let line = lines
            .iter()
            .find(|l| l["turn"] == turn)
            .expect("a turn line");
        line["reasoner"].as_str().unwrap().to_owned()
    };
    assert_eq!(reasoner(0), "interpreter", "{log}");
    // The propnet, or the compiled game if it was loaded by then (found
    // in the cache): the newest engine that arrived plays. The compiled
    // game may arrive after a first switch to the propnet, and a second
    // switch follows.
    let later = reasoner(3);
    assert!(["propnet", "compiled"].contains(&later.as_str()), "{log}");
    assert!(log.contains("switched from interpreter to "), "{log}");
    assert!(log.contains(&format!("to {later}\"")), "{log}");
}

/// A directory of this test's own, emptied.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Tic-tac-toe with a fact of its own: rules no other test loads, so that
/// no library of this process (they stay loaded) stands in for a build.
fn tictactoe_variant(tag: &str) -> String {
    let rules = tictactoe();
    format!("{} (testmark {tag}))", &rules[..rules.len() - 1])
}

/// Polls `done` every 20 ms until it holds, failing after `limit` (a
/// liveness bound, generous).
fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let until = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < until, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The match log's lines so far (none before the file exists).
fn log_lines(path: &Path) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// The first background line of `phase` in the log whose event is one of
/// `events`, waited for up to `limit`.
fn background_event(path: &Path, phase: &str, events: &[&str], limit: Duration) -> String {
    let mut found = None;
    wait_until(
        limit,
        &format!("{phase} {events:?} in {}", path.display()),
        || {
            found = log_lines(path)
                .into_iter()
                .find(|l| l["background"] == phase && events.iter().any(|e| l["event"] == *e));
            found.is_some()
        },
    );
    found.unwrap()["event"].as_str().unwrap().to_owned()
}

/// The processes naming `needle` (a cache directory of this test: cargo's
/// and rustc's arguments name it): each one's process group and command
/// line.
fn processes_naming(needle: &str) -> Vec<(u32, String)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| {
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if !cmdline.contains(needle) {
                return None;
            }
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            // `pid (comm) state ppid pgrp …`: comm may hold spaces.
            let after = stat.rsplit_once(')')?.1;
            let group = after.split_whitespace().nth(2)?.parse().ok()?;
            Some((group, cmdline))
        })
        .collect()
}

/// ABORT, then STOP, while the compiled game builds: cargo (and every
/// rustc under it) is gone soon after, and the log says the build was
/// cancelled. A fresh cache makes cargo build the runtime first (and again
/// for the second match, the first one's build having been killed), so it
/// is seen running.
#[cfg(target_os = "linux")]
#[test]
fn stop_and_abort_cancel_the_compiled_build_and_its_cargo() {
    let cache = fresh_dir("player_protocol_abort_cache");
    let logs = fresh_dir("player_protocol_abort_log");
    let addr = serve_with(PlayerConfig {
        cache_dir: Some(cache.clone()),
        ..config(Duration::from_secs(5), Some(&logs))
    });
    let needle = cache.to_str().unwrap();
    for (id, end, reply) in [("ab", "(ABORT ab)", "aborted"), ("st", "(STOP st)", "done")] {
        let rules = tictactoe_variant(id);
        let start = format!("(START {id} xplayer {rules} 1 1)");
        assert_eq!(post(addr, &start), "ready");
        wait_until(Duration::from_secs(300), "cargo runs", || {
            !processes_naming(needle).is_empty()
        });
        assert_eq!(post(addr, end), reply);
        wait_until(Duration::from_secs(20), "no cargo left", || {
            processes_naming(needle).is_empty()
        });
        let log = logs.join(format!("{id}.jsonl"));
        let ends = ["cancelled", "ready", "failed"];
        let event = background_event(&log, "compiled", &ends, Duration::from_secs(20));
        assert_eq!(event, "cancelled", "{id}");
    }
}

/// ABORT while chess grounds (seconds, then over budget): the grounding is
/// cancelled, and no compiled build starts after it.
#[test]
fn abort_cancels_the_background_grounding() {
    let logs = fresh_dir("player_protocol_abort_ground_log");
    let addr = server(Duration::from_secs(5), Some(&logs));
    let path = common_games().join("ggp-repository-base/chess.kif");
    let chess = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        post(addr, &format!("(START cg white ({chess}) 1 1)")),
        "ready"
    );
    assert_eq!(post(addr, "(ABORT cg)"), "aborted");
    let log = logs.join("cg.jsonl");
    let event = background_event(
        &log,
        "propnet",
        &["cancelled", "ready", "failed"],
        Duration::from_secs(60),
    );
    assert_eq!(event, "cancelled");
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        !log_lines(&log)
            .iter()
            .any(|l| l["background"] == "compiled"),
        "no compiled build after the cancel"
    );
}

fn common_games() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/games")
}

/// PREVIEW answers at once and starts the compiled build; the START of the
/// same rules joins it (no second build), and once it is built the next
/// match's START finds it in the cache.
#[test]
fn preview_starts_the_build_that_start_joins_then_finds() {
    let cache = fresh_dir("player_protocol_preview_cache");
    let logs = fresh_dir("player_protocol_preview_log");
    let addr = serve_with(PlayerConfig {
        cache_dir: Some(cache.clone()),
        ..config(Duration::from_secs(5), Some(&logs))
    });
    let needle = cache.to_str().unwrap();
    // Cargo's own command line (not rustc's) names a manifest.
    // One build is one process group: cargo's, which rustc shares, and a
    // child cargo forked (under cargo's command line until it runs rustc).
    let builds = || {
        let mut cargo: Vec<(u32, String)> = processes_naming(needle)
            .into_iter()
            .filter(|p| p.1.contains("--manifest-path"))
            .collect();
        cargo.sort();
        cargo.dedup_by_key(|p| p.0);
        cargo
    };
    let rules = tictactoe_variant("preview");
    let sent = Instant::now();
    assert_eq!(post(addr, &format!("(PREVIEW {rules} 5)")), "ready");
    assert!(
        sent.elapsed() < Duration::from_secs(5),
        "PREVIEW answered in its clock"
    );
    assert_eq!(
        post(addr, &format!("(START p1 xplayer {rules} 1 1)")),
        "ready"
    );
    let first = logs.join("p1.jsonl");
    let how = background_event(
        &first,
        "compiled",
        &["joined", "started", "cached"],
        Duration::from_secs(60),
    );
    assert_eq!(how, "joined", "the build PREVIEW started is joined");
    // Cargo builds the runtime first in a fresh cache (seconds): one build
    // is seen, never two.
    let mut most = Vec::new();
    wait_until(Duration::from_secs(900), "the build ends", || {
        let now = builds();
        if now.len() > most.len() {
            most = now;
        }
        let ended = ["ready", "failed", "cancelled"];
        log_lines(&first)
            .iter()
            .any(|l| l["background"] == "compiled" && ended.iter().any(|e| l["event"] == *e))
    });
    assert_eq!(
        most.len(),
        1,
        "one cargo build for PREVIEW and START: {most:?}"
    );
    let end = background_event(
        &first,
        "compiled",
        &["ready", "failed", "cancelled"],
        Duration::from_secs(900),
    );
    assert_eq!(end, "ready");
    assert_eq!(post(addr, "(ABORT p1)"), "aborted");

    assert_eq!(
        post(addr, &format!("(START p2 xplayer {rules} 1 1)")),
        "ready"
    );
    let second = logs.join("p2.jsonl");
    let how = background_event(
        &second,
        "compiled",
        &["joined", "started", "cached"],
        Duration::from_secs(60),
    );
    assert_eq!(how, "cached");
    assert_eq!(post(addr, "(ABORT p2)"), "aborted");
}

/// A play clock under the margin leaves no time before the search must
/// stop: the compaction of trees past half their cap (1 MiB, which the
/// start clock fills) is deferred (they move their root in place) and the
/// log says so; every reply is still a move of the game.
#[test]
fn with_no_time_left_the_compaction_is_deferred() {
    let logs = fresh_dir("player_protocol_steps_log");
    let mut small = config(Duration::from_secs(5), Some(&logs));
    small.search.tree_bytes = 1 << 20;
    let addr = serve_with(small);
    assert_eq!(
        post(addr, &format!("(START st xplayer {} 1 0.1)", tictactoe())),
        "ready"
    );
    let ours = post(addr, "(PLAY st NIL)");
    cell(&ours);
    let reply = post(addr, &format!("(PLAY st ({ours} noop))"));
    assert!(reply.eq_ignore_ascii_case("noop"), "{reply}");
    assert_eq!(post(addr, "(ABORT st)"), "aborted");
    let lines = log_lines(&logs.join("st.jsonl"));
    let skipped = lines
        .iter()
        .find(|l| l["step"] == "compact")
        .unwrap_or_else(|| panic!("no compaction step logged: {lines:?}"));
    assert_eq!(skipped["action"], "deferred", "{skipped}");
    assert!(skipped["estimate_ms"].as_f64().is_some(), "{skipped}");
}
