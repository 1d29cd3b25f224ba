//! The player's server: a thread per connection, so that messages are
//! answered while a search runs, each handed to the shared [`Player`].

use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::http;
use super::match_state::Player;

/// How long a client may take to send its request: a stalled connection
/// must not hold a thread for ever.
const READ_TIMEOUT: Duration = Duration::from_secs(30);

/// Serves `listener` for ever (until the process ends).
pub fn serve(listener: TcpListener, player: Arc<Player>) {
    for stream in listener.incoming() {
        match stream {
            Ok(stream) => {
                let player = player.clone();
                // The clock of a message runs from its arrival.
                let received = Instant::now();
                let spawned = std::thread::Builder::new()
                    .name("ggp-connection".to_owned())
                    .spawn(move || answer(stream, &player, received));
                if let Err(e) = spawned {
                    eprintln!("warning: cannot start a thread for a connection: {e}");
                }
            }
            Err(e) => eprintln!("warning: a connection failed: {e}"),
        }
    }
}

/// Reads one request, replies, closes; after the reply, logs its turn.
fn answer(mut stream: TcpStream, player: &Player, received: Instant) {
    let _ = stream.set_read_timeout(Some(READ_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let body = match http::read_request(&mut stream) {
        Ok(body) => body,
        Err(e) => {
            let why = super::protocol::error_reply(&format!("bad request: {e}"));
            let _ = http::write_reply(&mut stream, "400 Bad Request", &why);
            return;
        }
    };
    let reply = player.handle(&body, received);
    if let Err(e) = http::write_reply(&mut stream, "200 OK", &reply.body) {
        eprintln!("warning: cannot send the reply `{}`: {e}", reply.body);
    }
    let sent = Instant::now();
    if let Some(turn) = reply.turn {
        player.sent(turn, sent);
    }
}
