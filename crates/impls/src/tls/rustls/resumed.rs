//! Resumed handshakes in the rustls columns (`handshake-resumed`). rustls hands each TLS 1.3
//! ticket out at most once (its `ClientSessionStore` contract; a kept session cannot be copied),
//! so where the libssl columns offer one kept session to every call, each call here offers a
//! ticket of its own: before each batch, outside the clock, one full handshake whose server
//! issues as many tickets as the batch has calls, all kept in the client's store. The timed
//! handshakes' server shares that server's ticket keys (stateless tickets) and issues none.

use super::{configure, exchange, Pair, Provider};
use crate::tls::certs::SERVER_NAME;
use crate::tls::{handshake, unclocked, Ends, Negotiated, Side};
use cryptospeed_catalog::{Algorithm, Primitive};
use rustls::client::{ClientSessionStore, Resumption};
use rustls::client::{Tls12ClientSessionValue, Tls13ClientSessionValue};
use rustls::pki_types::ServerName;
use rustls::server::ProducesTickets;
use rustls::{ClientConnection, HandshakeKind, NamedGroup, ServerConfig, ServerConnection};
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// The client's store: every TLS 1.3 ticket it is handed, each given out once, oldest first.
#[derive(Debug, Default)]
struct Tickets(Mutex<VecDeque<Tls13ClientSessionValue>>);

impl Tickets {
    fn len(&self) -> usize {
        self.0.lock().map_or(0, |t| t.len())
    }
}

impl ClientSessionStore for Tickets {
    fn set_kx_hint(&self, _: ServerName<'static>, _: NamedGroup) {}
    fn kx_hint(&self, _: &ServerName<'_>) -> Option<NamedGroup> {
        None
    }
    fn set_tls12_session(&self, _: ServerName<'static>, _: Tls12ClientSessionValue) {}
    fn tls12_session(&self, _: &ServerName<'_>) -> Option<Tls12ClientSessionValue> {
        None
    }
    fn remove_tls12_session(&self, _: &ServerName<'static>) {}
    fn insert_tls13_ticket(&self, _: ServerName<'static>, value: Tls13ClientSessionValue) {
        if let Ok(mut t) = self.0.lock() {
            t.push_back(value);
        }
    }
    fn take_tls13_ticket(&self, _: &ServerName<'static>) -> Option<Tls13ClientSessionValue> {
        self.0.lock().ok()?.pop_front()
    }
}

/// The provider's recommended ticketer (stateless tickets under keys made at set-up).
fn ticketer(provider: Provider) -> Result<Arc<dyn ProducesTickets>, String> {
    match provider {
        Provider::AwsLcRs => rustls::crypto::aws_lc_rs::Ticketer::new(),
        Provider::Ring => rustls::crypto::ring::Ticketer::new(),
    }
    .map_err(|e| e.to_string())
}

/// A rustls pair whose clients resume: the timed handshakes' pair, the tickets its clients take,
/// and the server configuration that mints them.
pub(in crate::tls) struct Resuming {
    pair: Pair,
    tickets: Arc<Tickets>,
    minting: ServerConfig,
}

impl Resuming {
    fn new(provider: Provider, p: &Primitive) -> Result<Resuming, String> {
        let mut pair = configure(provider, p)?;
        let tickets = Arc::new(Tickets::default());
        let mut client = (*pair.client_config).clone();
        client.resumption = Resumption::store(tickets.clone());
        pair.client_config = Arc::new(client);
        let mut server = (*pair.server_config).clone();
        server.ticketer = ticketer(provider)?;
        server.send_tls13_tickets = 0;
        let minting = server.clone();
        pair.server_config = Arc::new(server);
        Ok(Resuming {
            pair,
            tickets,
            minting,
        })
    }

    /// Fills the client's store up to `want` tickets: one handshake whose server issues them,
    /// the client reading them all (offering, and so spending, one kept ticket if it has any).
    fn mint(&mut self, want: usize) -> Result<(), String> {
        let e = |e: rustls::Error| e.to_string();
        let before = self.tickets.len();
        let mut config = self.minting.clone();
        config.send_tls13_tickets = want.saturating_sub(before) + usize::from(before > 0);
        let name = ServerName::try_from(SERVER_NAME).map_err(|e| e.to_string())?;
        let mut client = ClientConnection::new(self.pair.client_config.clone(), name).map_err(e)?;
        let mut server = ServerConnection::new(Arc::new(config)).map_err(e)?;
        let (mut to_server, mut to_client) = (Vec::new(), Vec::new());
        // ClientHello, the server's flight, Finished, the tickets, each read by the other end.
        for _ in 0..3 {
            exchange(&mut client, &mut to_client, &mut to_server)?;
            exchange(&mut server, &mut to_server, &mut to_client)?;
        }
        exchange(&mut client, &mut to_client, &mut to_server)?;
        match self.tickets.len() >= want {
            true => Ok(()),
            false => Err(format!(
                "the client kept {} tickets where {want} were wanted",
                self.tickets.len()
            )),
        }
    }

    /// Both ends of the last handshake say it resumed.
    fn both_resumed(&self) -> Result<(), String> {
        let c = self.pair.client.as_ref().and_then(|c| c.handshake_kind());
        let s = self.pair.server.as_ref().and_then(|s| s.handshake_kind());
        match (c, s) {
            (Some(HandshakeKind::Resumed), Some(HandshakeKind::Resumed)) => Ok(()),
            _ => Err(format!(
                "the handshake did not resume (client: {c:?}, server: {s:?})"
            )),
        }
    }
}

impl Ends for Resuming {
    fn make(&mut self, side: Side) -> Result<(), String> {
        self.pair.make(side)
    }
    fn step(&mut self, side: Side) -> Result<usize, String> {
        self.pair.step(side)
    }
    fn finished(&self) -> bool {
        self.pair.finished()
    }
    fn negotiated(&mut self) -> Result<Negotiated, String> {
        self.pair.negotiated()
    }
    /// Outside the clock: a ticket for every call of the batch.
    fn before_batch(&mut self, iters: u64) -> Result<(), String> {
        match self.tickets.len() < iters as usize {
            true => self.mint(iters as usize),
            false => Ok(()),
        }
    }
    /// The batch's last handshake resumed on both ends, or the cell timed full handshakes.
    fn after_batch(&mut self) -> Result<(), String> {
        self.both_resumed()
    }
}

/// The checks before a resumed cell is timed: one handshake on a freshly minted ticket resumed
/// on both ends, with the cell's group (PSK with (EC)DHE still exchanges a key share), and both
/// ends export the same keying material. Returns the pair and that handshake's flights.
pub(in crate::tls) fn checked(
    provider: Provider,
    p: &Primitive,
) -> Result<(Resuming, Vec<usize>), String> {
    let Algorithm::Tls13Handshake { group, .. } = p.algorithm else {
        return Err(format!("{} is not a TLS handshake", p.id));
    };
    let mut ends = Resuming::new(provider, p)?;
    ends.before_batch(1)?;
    let mut flights = Vec::new();
    handshake(&mut ends, &mut unclocked, Some(&mut flights))?;
    ends.both_resumed()?;
    let got = ends.negotiated()?;
    if !got.group.eq_ignore_ascii_case(group) {
        return Err(format!(
            "the resumed handshake used group {} where {group} was asked for",
            got.group
        ));
    }
    if got.client_export != got.server_export {
        return Err("the ends' exported keying material differs (RFC 8446 7.5)".into());
    }
    Ok((ends, flights))
}
