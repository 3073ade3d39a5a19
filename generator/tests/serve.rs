//! `damka serve`'s API against the command line: the same JSON as `damka
//! probe --json` (byte for byte) and `damka audit --json` (value for
//! value) and `damka play --json` (byte for byte); clear 4xx
//! answers to bad requests, and many clients at once all answered.

mod support;

use std::time::{Duration, Instant};

use damka::Variant;
use serde_json::{json, Value};
use support::http::{encode, get, raw, Answer, Server};
use support::{damka_stdout, generate_with_rules};

fn probe_target(fen: &str, extra: &str) -> String {
    format!("/api/probe?fen={}{extra}", encode(fen))
}

/// The audit, once the server has computed it (it answers 503 until then).
fn wait_for(server: &Server, target: &str) -> Answer {
    let start = Instant::now();
    loop {
        let answer = get(server.addr, target);
        if answer.status != 503 || start.elapsed() > Duration::from_secs(120) {
            return answer;
        }
        assert!(answer.json()["error"].as_str().unwrap().contains("being computed"), "{}", answer.body);
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_api_answers_what_the_command_line_prints() {
    let tables = generate_with_rules("serve-api", Variant::Russian, 3, "russian");
    let dir = tables.path().to_str().unwrap();
    let server = Server::start(tables.path());
    // A win, the same turned round (Black to move), a capture position (not
    // stored: resolved through its capture), a side without a move, a
    // draw, and running counters that change the answer or not.
    let cases: [(&str, &[&str]); 8] = [
        ("W:WKa1,Kc3:Bc7", &[]),
        ("B:WKa1,Kc3:Bc7", &[]),
        ("W:Wc3:Bd4", &[]),
        ("W:Wa1:Bb2,c3", &[]),
        ("W:WKa1,Kc3:BKh2", &[]),
        ("W:WKa1,Kc3:Bc7", &["--quiet-plies", "12", "--kings-only-plies", "3"]),
        ("W:WKa1,Kc3:BKh2", &["--quiet-plies", "30", "--kings-only-plies", "30"]),
        // Algebraic or numeric squares: the same position.
        ("W:WK29,K22:Bc7", &[]),
    ];
    for (fen, counters) in cases {
        let cli = damka_stdout(&[&["probe", fen, "--json", "--dir", dir], counters].concat());
        let extra = match counters {
            [_, q, _, k] => format!("&quiet={q}&kings_only={k}"),
            _ => String::new(),
        };
        for variant in ["", "&variant=russian"] {
            let answer = get(server.addr, &probe_target(fen, &format!("{extra}{variant}")));
            assert_eq!((answer.status, answer.content_type.as_str()), (200, "application/json"), "{fen}: {}", answer.body);
            assert_eq!(answer.body, cli, "{fen} {counters:?}");
        }
    }

    // The audit of the tables' rule set, whole and by slice.
    let cli: Value = serde_json::from_str(&damka_stdout(&["audit", "--pieces", "3", "--rules", "russian", "--json", "--quiet"])).unwrap();
    let api = wait_for(&server, "/api/audit");
    assert_eq!(api.status, 200, "{}", api.body);
    assert_eq!(api.json(), cli);
    let slices = cli["slices"].as_array().unwrap();
    assert!(slices.len() > 10);
    for slice in slices {
        let material = slice["material"].as_str().unwrap();
        assert_eq!(get(server.addr, &format!("/api/audit?material={material}")).json(), *slice);
        let svg = get(server.addr, &format!("/api/audit.svg?material={material}"));
        assert_eq!(svg.content_type, "image/svg+xml");
        assert!(svg.body.starts_with("<svg") && svg.body.contains(material), "{}", svg.body);
    }

    // The play-out: what `damka play --json` prints, to the byte, a win
    // and a draw.
    for (fen, quiet, kings_only) in [("W:WKa1,Kc3:Bc7", "5", "5"), ("W:WKa1,Kc3:BKh2", "0", "0")] {
        let cli = damka_stdout(&["play", fen, "--json", "--dir", dir, "--quiet-plies", quiet, "--kings-only-plies", kings_only]);
        let api = get(server.addr, &format!("/api/playout?fen={}&quiet={quiet}&kings_only={kings_only}", encode(fen)));
        assert_eq!(api.status, 200, "{}", api.body);
        assert_eq!(api.body, cli, "{fen}");
    }
    // The page plays each of its moves through /api/position, from the
    // move's text: the same positions, down to a side without a piece.
    let start = "W:WKa1,Kc3:Bc7";
    let game = get(server.addr, &format!("/api/playout?fen={}", encode(start))).json();
    let moves = game["moves"].as_array().unwrap();
    assert!(moves.len() >= 5 && moves.iter().any(|m| m["capture"] == true), "{game}");
    let mut fen = start.to_string();
    for m in moves {
        let played = format!("/api/position?fen={}&move={}", encode(&fen), encode(m["move"].as_str().unwrap()));
        assert_eq!(get(server.addr, &played).json()["fen"], m["fen"]);
        fen = m["fen"].as_str().unwrap().to_string();
    }
    let last: Value = serde_json::from_str(&damka_stdout(&["probe", &fen, "--json", "--dir", dir])).unwrap();
    assert_eq!(last["no_legal_move"], true, "{fen}");
    assert_eq!((&game["result"]["winner"], &game["result"]["reason"]), (&json!("white"), &json!("no-pieces")));
}

#[test]
fn bad_requests_get_clear_4xx_answers_and_the_server_stays_up() {
    let tables = generate_with_rules("serve-bad", Variant::Russian, 3, "russian");
    let mut server = Server::start(tables.path());
    let huge_fen = format!("W:W{}", "21,".repeat(10_000));
    let cases: Vec<(String, u16, &str)> = vec![
        (probe_target("garbage", ""), 400, "cannot read FEN 'garbage'"),
        (probe_target("W:W21,21:B1", ""), 400, "used twice"),
        (probe_target("W:Wb8:Bh2", ""), 400, "promotion row"),
        ("/api/probe".into(), 400, "no position"),
        ("/api/probe?fen=%zz".into(), 400, "bad escape"),
        (probe_target("W:WKa1,Kc3,Ke5:BKh2", ""), 404, "at most 3"),
        (probe_target("W:WKa1,Kc3:Bc7", "&quiet=3&kings_only=5"), 400, "impossible counters"),
        (probe_target("W:WKa1,Kc3:Bc7", "&quiet=lots"), 400, "quiet 'lots'"),
        (probe_target("W:WKa1,Kc3:Bc7", "&quiet=70000"), 400, "expected a number of plies"),
        (probe_target("W:WKa1,Kc3:Bc7", "&variant=italian"), 400, "not italian"),
        (probe_target("W:WKa1,Kc3:Bc7", "&variant=chess"), 400, "unknown variant"),
        (format!("/api/position?fen={}&move=a1-h8", encode("W:WKa1,Kc3:Bc7")), 400, "not legal"),
        ("/api/audit?material=nonsense".into(), 400, "expected kings (K) then men (M)"),
        ("/api/audit?material=KKKKKvK".into(), 404, "no slice KKKKKvK"),
        ("/api/audit.svg?material=KKKKKvK".into(), 404, "no slice KKKKKvK"),
        ("/no/such/page".into(), 404, "no page /no/such/page"),
        // Within the head's limit but not a position.
        (probe_target(&huge_fen[..5000], ""), 400, "(5000 characters)"),
        (probe_target(&huge_fen, ""), 414, "over 16384 bytes"),
    ];
    // The audit first, so that material errors are about the material.
    assert_eq!(wait_for(&server, "/api/audit").status, 200);
    for (target, status, says) in &cases {
        let answer = get(server.addr, target);
        assert_eq!(answer.status, *status, "{}: {}", &target[..target.len().min(80)], answer.body);
        assert_eq!(answer.content_type, "application/json");
        let error = answer.json()["error"].as_str().map(String::from).unwrap_or_default();
        assert!(error.contains(says), "{}: '{error}' should say '{says}'", &target[..target.len().min(80)]);
        assert!(error.len() < 400, "an error echoes at most an excerpt: {} bytes", error.len());
    }
    let many_headers = format!("GET / HTTP/1.1\r\n{}\r\n", "X-Filler: yes\r\n".repeat(100));
    let oversized_headers = format!("GET / HTTP/1.1\r\nX-Filler: {}\r\n\r\n", "y".repeat(20_000));
    let raw_cases: [(&[u8], u16, &str); 6] = [
        (b"POST /api/probe HTTP/1.1\r\n\r\n", 405, "only GET and HEAD"),
        (b"DELETE / HTTP/1.1\r\n\r\n", 405, "only GET and HEAD"),
        (b"GET /api/info HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", 413, "no request bodies"),
        (b"\x16\x03\x01 not http at all\r\n\r\n", 400, "malformed request"),
        (many_headers.as_bytes(), 431, "more than 64 headers"),
        (oversized_headers.as_bytes(), 431, "over 16384 bytes"),
    ];
    for (bytes, status, says) in raw_cases {
        let answer = raw(server.addr, bytes).expect("an answer");
        assert_eq!(answer.status, status, "{}", String::from_utf8_lossy(&bytes[..bytes.len().min(40)]));
        assert!(answer.json()["error"].as_str().unwrap().contains(says), "{}", answer.body);
    }
    // Clients that connect and say nothing hold a connection each, up to
    // the bound; past it the server says it is busy, and once they go it
    // answers again.
    let silent: Vec<_> = (0..128).map(|_| std::net::TcpStream::connect(server.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let busy = get(server.addr, "/api/info");
    assert_eq!(busy.status, 503, "{}", busy.body);
    assert!(busy.json()["error"].as_str().unwrap().contains("too many connections"));
    drop(silent);
    std::thread::sleep(Duration::from_millis(200));
    assert!(server.alive());
    let info = get(server.addr, "/api/info");
    assert_eq!(info.status, 200);
    assert_eq!(info.json()["max_pieces"], 3);
    let page = get(server.addr, "/");
    assert!(page.status == 200 && page.content_type.starts_with("text/html") && page.body.contains("explorer.js"));
}

#[test]
fn sixty_four_clients_at_once_are_all_answered() {
    let tables = generate_with_rules("serve-many", Variant::Russian, 3, "russian");
    let mut server = Server::start(tables.path());
    let addr = server.addr;
    let fens = ["W:WKa1,Kc3:Bc7", "B:WKa1,Kc3:Bc7", "W:Wc3:Bd4", "W:WKa1,Kc3:BKh2"];
    let expected: Vec<String> = fens.iter().map(|f| get(addr, &probe_target(f, "")).body).collect();
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(64));
    let clients: Vec<_> = (0..64)
        .map(|i| {
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                let mut client = support::http::Client::connect(addr).expect("connect");
                barrier.wait();
                (0..5).map(|j| client.get(&probe_target(fens[(i + j) % 4], "")).expect("an answer")).collect::<Vec<_>>()
            })
        })
        .collect();
    for (i, client) in clients.into_iter().enumerate() {
        for (j, answer) in client.join().expect("the client ran").into_iter().enumerate() {
            assert_eq!(answer.status, 200, "{}", answer.body);
            assert_eq!(answer.body, expected[(i + j) % 4]);
        }
    }
    assert!(server.alive());
}
