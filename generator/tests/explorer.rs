//! The explorer's page in a real browser: headless Chromium driven through
//! chromedriver (the W3C WebDriver protocol, JSON over HTTP), against
//! `damka serve` on generated tables. What the page shows is checked
//! against `damka probe --json` and `damka audit --json`, and against the
//! board itself (where a played move's piece went).
//!
//! Needs Chromium and chromedriver (Debian: `apt-get install chromium
//! chromium-driver`; .ci/run installs them). Without them the test fails
//! and says so.

mod support;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use damka::Variant;
use serde_json::{json, Value};
use support::http::{encode, Client, Server};
use support::{damka_stdout, generate_with_rules};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A program on the PATH or in /usr/bin.
fn find_program(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path).chain([PathBuf::from("/usr/bin")]).map(|d| d.join(name)).find(|p| p.is_file())
}

/// A Chromium session through chromedriver; both end on drop.
struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
}

impl Browser {
    fn start() -> Browser {
        let missing = || {
            panic!(
                "the explorer test drives Chromium through chromedriver, and they are not installed: \
                 apt-get install chromium chromium-driver (.ci/run installs them)"
            )
        };
        let chromium = find_program("chromium").unwrap_or_else(missing);
        let chromedriver = find_program("chromedriver").unwrap_or_else(missing);
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let mut browser = Browser { driver, addr, session: String::new() };
        let start = Instant::now();
        while Client::connect(addr).and_then(|mut c| c.get("/status")).map_or(true, |a| a.status != 200) {
            assert!(start.elapsed() < Duration::from_secs(20), "chromedriver did not answer within 20 s");
            std::thread::sleep(Duration::from_millis(50));
        }
        let capabilities = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1240,1000"],
            },
        }}});
        let session = browser.call("POST", "/session", Some(capabilities));
        browser.session = session["sessionId"].as_str().expect("a session id").to_string();
        browser
    }

    /// A WebDriver command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let body = body.map(|b| b.to_string());
        let answer = Client::connect(self.addr)
            .and_then(|mut c| c.send(method, path, Some(body.as_deref().unwrap_or("{}")).filter(|_| method == "POST")))
            .unwrap_or_else(|e| panic!("WebDriver {method} {path}: {e}"));
        let value = answer.json()["value"].take();
        assert_eq!(answer.status, 200, "WebDriver {method} {path}: {value}");
        value
    }

    fn session_call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    fn open(&self, url: &str) {
        self.session_call("POST", "/url", Some(json!({ "url": url })));
    }

    fn find(&self, css: &str) -> String {
        let found = self.session_call("POST", "/element", Some(json!({ "using": "css selector", "value": css })));
        found[ELEMENT].as_str().unwrap_or_else(|| panic!("no element {css}: {found}")).to_string()
    }

    fn click(&self, css: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/click"), Some(json!({})));
    }

    fn type_into(&self, css: &str, text: &str) {
        let id = self.find(css);
        self.session_call("POST", &format!("/element/{id}/clear"), Some(json!({})));
        self.session_call("POST", &format!("/element/{id}/value"), Some(json!({ "text": text })));
    }

    fn text(&self, css: &str) -> String {
        let id = self.find(css);
        self.session_call("GET", &format!("/element/{id}/text"), None).as_str().unwrap_or_default().to_string()
    }

    /// Runs `script` (a function body) in the page; what it returns.
    fn script(&self, script: &str) -> Value {
        self.session_call("POST", "/execute/sync", Some(json!({ "script": script, "args": [] })))
    }

    /// Waits until `condition` (a JavaScript expression) holds.
    fn wait(&self, condition: &str) {
        let start = Instant::now();
        while self.script(&format!("return !!({condition});")) != json!(true) {
            if start.elapsed() > Duration::from_secs(30) {
                let message = self.script("return document.getElementById('message').textContent;");
                panic!("waited 30 s for {condition}; the page says {message}");
            }
            std::thread::sleep(Duration::from_millis(40));
        }
    }

    /// Waits for the page to show the answer to a change that leaves
    /// `fen` on it.
    fn wait_for_fen(&self, fen: &str) {
        self.wait(&format!("document.body.dataset.state === 'ready' && document.body.dataset.fen === {}", json!(fen)));
    }

}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = Client::connect(self.addr).and_then(|mut c| c.send("DELETE", &format!("/session/{}", self.session), None));
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// `damka probe --json` on the tables in `dir`, of the game they are of.
fn probe(dir: &Path, fen: &str, extra: &[&str]) -> Value {
    let manifest = damka::directory::Manifest::read(dir).expect("a manifest").expect("a manifest");
    let variant = manifest.game.to_string();
    let args = [&["probe", fen, "--json", "--variant", &variant, "--dir", dir.to_str().unwrap()], extra].concat();
    serde_json::from_str(&damka_stdout(&args)).expect("JSON")
}

/// The move list as the page shows it: (move, value, plies) and the group
/// headings, best first.
fn shown_moves(browser: &Browser) -> Value {
    browser.script(
        "return [...document.querySelectorAll('#moves li.move')].map(li => \
         [li.dataset.move, li.dataset.wdl, Number(li.dataset.plies), li.closest('.group').dataset.group]);",
    )
}

/// The same from `damka probe --json`.
fn expected_moves(probe: &Value) -> Value {
    let moves = probe["moves"].as_array().unwrap();
    let group = |m: &Value| m["with_counters"]["wdl"].as_str().or(m["wdl"].as_str()).unwrap().to_string();
    Value::Array(moves.iter().map(|m| json!([m["move"], m["wdl"], m["plies"], group(m)])).collect())
}

/// The value as the page shows it.
fn shown_value(browser: &Browser) -> (Value, Value) {
    let v = browser.script("const v = document.getElementById('value').dataset; return [v.wdl, Number(v.plies)];");
    (v[0].clone(), v[1].clone())
}

fn check_page_against_probe(browser: &Browser, dir: &Path, fen: &str) -> Value {
    let expected = probe(dir, fen, &[]);
    browser.wait_for_fen(expected["fen"].as_str().unwrap());
    assert_eq!(shown_value(browser), (expected["value"]["wdl"].clone(), expected["value"]["plies"].clone()), "{fen}");
    assert!(browser.text("#pure").contains(&format!("pure value (no move limits): {}", expected["value"]["pure"].as_str().unwrap())));
    assert_eq!(shown_moves(browser), expected_moves(&expected), "{fen}");
    expected
}

#[test]
fn the_explorer_shows_what_damka_probe_says() {
    let tables = generate_with_rules("explorer", Variant::Russian, 4, "russian");
    let dir = tables.path();
    let server = Server::start(dir);
    let base = format!("http://{}", server.addr);
    let browser = Browser::start();

    // The page opens on an example; then a position set by clicks.
    browser.open(&format!("{base}/"));
    browser.wait("document.body.dataset.state === 'ready'");
    browser.click("#clear");
    browser.wait("document.querySelectorAll('.piece').length === 0");
    browser.click("#tool-wk");
    for square in ["a1", "c3", "e5"] {
        browser.click(&format!("[data-square='{square}']"));
    }
    browser.click("#tool-bk");
    browser.click("[data-square='h2']");
    // A second click with the same piece takes it off again.
    browser.click("#tool-wm");
    browser.click("[data-square='c5']");
    browser.click("[data-square='c5']");
    let fen = "W:WKa1,Kc3,Ke5:BKh2";
    let before = check_page_against_probe(&browser, dir, fen);
    assert_eq!(before["value"]["wdl"], "win");
    assert_eq!(browser.script("return document.querySelectorAll('.piece').length;"), 4);

    // Playing the best move: its piece goes where the move says, Black is
    // to move, and the page shows what damka probe says of the new position.
    let best = before["moves"][0]["move"].as_str().unwrap().to_string();
    assert!(!before["moves"][0]["capture"].as_bool().unwrap());
    let (from, to) = best.split_once('-').unwrap();
    browser.click(&format!("#moves li[data-move='{best}'] button"));
    browser.wait(&format!("document.querySelector(\"[data-square='{to}'] .piece\") !== null"));
    browser.wait("document.body.dataset.state === 'ready'");
    let after_fen = browser.script("return document.body.dataset.fen;").as_str().unwrap().to_string();
    assert!(after_fen.starts_with("B:"), "{after_fen}");
    assert_eq!(browser.script(&format!("return document.querySelector(\"[data-square='{from}'] .piece\");")), Value::Null);
    assert_eq!(browser.script(&format!("return document.querySelector(\"[data-square='{to}'] .piece\").dataset.piece;")), "wk");
    let after_probe = check_page_against_probe(&browser, dir, &after_fen);
    // The mover's win in n plies is the opponent's loss in n - 1.
    assert_eq!(after_probe["value"]["wdl"], "loss");
    assert_eq!(after_probe["value"]["plies"].as_u64().unwrap() + 1, before["moves"][0]["plies"].as_u64().unwrap());

    // Running counters: the verdict damka probe gives with them.
    browser.click("#use-counters");
    browser.type_into("#quiet", "20");
    browser.type_into("#kings-only", "20");
    browser.click("#fen");
    let counted = probe(dir, &after_fen, &["--quiet-plies", "20", "--kings-only-plies", "20"]);
    let verdict = counted["counters"]["wdl"].as_str().unwrap().to_string();
    browser.wait(&format!(
        "document.body.dataset.state === 'ready' && document.getElementById('verdict').textContent.includes('with 20 quiet and 20 kings-only plies: {verdict}')"
    ));
    assert_eq!(shown_moves(&browser), expected_moves(&counted));
    browser.click("#use-counters");

    // Play out: the game `damka play --json` plays, move for move, to a
    // side without a piece or a move.
    browser.wait("document.body.dataset.state === 'ready' && document.getElementById('verdict').textContent === ''");
    browser.click("#playout");
    browser.wait("document.getElementById('line-end') !== null");
    let line = browser.script(
        "return [...document.querySelectorAll('#line-table tr')].slice(1).map(tr => [tr.children[1].textContent, tr.children[5].textContent]);",
    );
    let played: Value = serde_json::from_str(&damka_stdout(&["play", &after_fen, "--json", "--dir", dir.to_str().unwrap()])).unwrap();
    let expected: Vec<Value> = played["moves"].as_array().unwrap().iter().map(|m| json!([m["move"], m["fen"]])).collect();
    assert_eq!(line, Value::Array(expected));
    assert_eq!(line[0][0], after_probe["moves"][0]["move"]);
    let last = probe(dir, line.as_array().unwrap().last().unwrap()[1].as_str().unwrap(), &[]);
    assert_eq!(last["no_legal_move"], true);
    let end = browser.text("#line-end");
    assert!(end.contains("white wins") && end.contains(&format!("after {} plies", line.as_array().unwrap().len())), "{end}");

    // The link to the position opens it; so does one written by hand.
    let link = browser.script("return document.getElementById('share').href;").as_str().unwrap().to_string();
    assert!(link.contains("fen=") && link.contains("variant=russian"), "{link}");
    browser.open("about:blank");
    browser.open(&link);
    check_page_against_probe(&browser, dir, &after_fen);
    let by_hand = "B:WKa1,Kc3:BKh8,f8";
    browser.open(&format!("{base}/?fen={}&variant=russian", encode(by_hand)));
    check_page_against_probe(&browser, dir, by_hand);
    assert_eq!(browser.script("return document.getElementById('turn').value;"), "black");

    // Flip colours: the same position for the other side, the same value.
    browser.click("#flip");
    let flipped = check_page_against_probe(&browser, dir, "W:WKa1,c1:BKh8,Kf6");
    assert_eq!(flipped["value"], probe(dir, by_hand, &[])["value"]);

    // A position typed in wrong: the server's error, on the page.
    browser.type_into("#fen", "W:Wb8:Bh2");
    browser.click("#fen-go");
    browser.wait("document.body.dataset.state === 'error'");
    assert!(browser.text("#message").contains("its own promotion row"), "{}", browser.text("#message"));
    // Too many pieces for the tables: said as such.
    browser.click("#start");
    browser.wait("document.body.dataset.state === 'error' && document.getElementById('message').textContent.includes('at most 4')");
}

#[test]
fn the_audit_view_and_the_italian_board() {
    let browser = Browser::start();
    // The audit view: damka audit's table, a row a slice, and the picture.
    let tables = generate_with_rules("explorer-audit", Variant::Russian, 3, "russian");
    let server = Server::start(tables.path());
    let audit: Value =
        serde_json::from_str(&damka_stdout(&["audit", "--pieces", "3", "--rules", "russian", "--json", "--quiet"])).unwrap();
    browser.open(&format!("http://{}/?fen={}", server.addr, encode("W:WKa1:BKh8,h6")));
    browser.wait("document.body.dataset.state === 'ready'");
    browser.click("#audit-load");
    browser.wait("!document.getElementById('audit-view').hidden");
    let rows = browser.script(
        "return [...document.querySelectorAll('#audit-table tr[data-material]')].map(tr => \
         [tr.dataset.material, Number(tr.children[2].textContent), Number(tr.children[4].textContent)]);",
    );
    let slices = audit["slices"].as_array().unwrap();
    let expected: Vec<Value> = slices.iter().map(|s| json!([s["material"], s["pure_wins"], s["cursed_wins"]])).collect();
    assert_eq!(rows, Value::Array(expected));
    // The slice of the position on the board is the one selected, and its
    // picture loads.
    assert_eq!(browser.script("return document.querySelector('#audit-table tr.selected').dataset.material;"), "KvKM");
    browser.wait("document.getElementById('audit-plot').complete && document.getElementById('audit-plot').naturalWidth > 0");
    assert!(browser.script("return document.getElementById('audit-plot').src;").as_str().unwrap().ends_with("material=KvKM"));

    // The Italian board: the mirror image, its square 1 top left and 32
    // bottom right, and moves written in its numbers.
    let italian = generate_with_rules("explorer-italian", Variant::Italian, 2, "none");
    let server = Server::start(italian.path());
    browser.open(&format!("http://{}/", server.addr));
    // The example has more pieces than these tables: an error, a board.
    browser.wait("document.body.dataset.state === 'error'");
    let corners = browser.script(
        "const dark = [...document.querySelectorAll('#board .cell')].map(c => c.dataset.square || null); \
         return [dark[0], dark[63], dark[7], dark[56]];",
    );
    assert_eq!(corners, json!(["1", "32", null, null]));
    browser.click("#clear");
    browser.click("#tool-wk");
    browser.click("[data-square='1']");
    browser.click("#tool-bk");
    browser.click("[data-square='32']");
    check_page_against_probe(&browser, italian.path(), "W:WK1:BK32");
}
