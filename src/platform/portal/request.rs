//! The conversation every portal method shares: a connection to the bus the portal is on
//! ([`PortalBus`]), its owner's unique name (only signals from it count), handle tokens, and
//! [`PortalBus::request`]: subscribe to `org.freedesktop.portal.Request.Response` on the
//! request path the portal will use, call the method, wait (bounded) for the response.
//! Also [`Latch`], the one-shot wake-up a waiting thread blocks on (a stop, a deadline), so no
//! thread here ever polls.

use super::PortalError;
use futures_core::Stream;
use std::collections::HashMap;
use std::future::poll_fn;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};
use std::time::Duration;
use zbus::message::Type as MessageType;
use zbus::{Connection, MatchRule, Message, MessageStream, OwnedObjectPath, OwnedVariant, Variant};

/// The portal's well-known name and object.
pub(super) const DESKTOP: &str = "org.freedesktop.portal.Desktop";
pub(super) const DESKTOP_PATH: &str = "/org/freedesktop/portal/desktop";
const REQUEST_IFACE: &str = "org.freedesktop.portal.Request";
const SESSION_IFACE: &str = "org.freedesktop.portal.Session";
/// How long a plain method call may take: the first one may start the portal (D-Bus activation).
const CALL_TIMEOUT: Duration = Duration::from_secs(25);

/// The results of a granted request (`a{sv}`).
pub(super) type Results = HashMap<String, OwnedVariant>;

/// A connection to the bus the desktop portal is on.
#[derive(Clone)]
pub struct PortalBus {
    pub(super) conn: Connection,
}

impl PortalBus {
    /// The session bus: where the desktop's portal is.
    pub fn session() -> Result<PortalBus, PortalError> {
        let builder = zbus::connection::Builder::session();
        Self::build(builder)
    }

    /// The bus at a D-Bus address (`unix:path=…`): the tests' private bus.
    pub fn at(address: &str) -> Result<PortalBus, PortalError> {
        Self::build(zbus::connection::Builder::address(address))
    }

    fn build(builder: zbus::connection::Builder<'_>) -> Result<PortalBus, PortalError> {
        let conn = zbus::block_on(builder.method_timeout(CALL_TIMEOUT).build())
            .map_err(|e| PortalError::NoBus(e.to_string()))?;
        Ok(PortalBus { conn })
    }

    /// The `version` property of a portal interface; `None` when the desktop offers none (no
    /// portal, or no backend implementing it).
    pub fn interface_version(&self, interface: &str) -> Option<u32> {
        zbus::block_on(async {
            let reply = self
                .conn
                .call_method(
                    Some(DESKTOP),
                    DESKTOP_PATH,
                    Some("org.freedesktop.DBus.Properties"),
                    "Get",
                    &(interface, "version"),
                )
                .await
                .ok()?;
            let value: OwnedVariant = reply.body().deserialize().ok()?;
            u32::try_from(&*value).ok()
        })
    }

    /// The unique name that owns the portal now: only its signals are believed. Asking for the
    /// interface's version first starts the portal when it is not running yet.
    pub(super) async fn portal_owner(
        &self,
        interface: &'static str,
    ) -> Result<String, PortalError> {
        let call = |message: String| PortalError::Call {
            call: "GetNameOwner",
            message,
        };
        let version = self
            .conn
            .call_method(
                Some(DESKTOP),
                DESKTOP_PATH,
                Some("org.freedesktop.DBus.Properties"),
                "Get",
                &(interface, "version"),
            )
            .await;
        if version.is_err() {
            return Err(PortalError::Unavailable(interface));
        }
        let reply = self
            .conn
            .call_method(
                Some("org.freedesktop.DBus"),
                "/org/freedesktop/DBus",
                Some("org.freedesktop.DBus"),
                "GetNameOwner",
                &DESKTOP,
            )
            .await
            .map_err(|e| call(e.to_string()))?;
        reply.body().deserialize().map_err(|e| call(e.to_string()))
    }

    /// This connection's unique name as the portal writes it in request and session paths
    /// (":1.42" → "1_42").
    pub(super) fn sender_element(&self) -> Result<String, PortalError> {
        let name = self.conn.unique_name().ok_or(PortalError::NoBus(
            "the bus gave the connection no name".into(),
        ))?;
        Ok(sender_path_element(name.as_str()))
    }

    /// A stream of the signals `member` of `interface` at `path` sent by `owner`.
    pub(super) async fn signals(
        &self,
        owner: &str,
        path: &str,
        interface: &'static str,
        member: Option<&'static str>,
    ) -> Result<MessageStream, PortalError> {
        let subscribe = |e: zbus::Error| PortalError::Call {
            call: "AddMatch",
            message: e.to_string(),
        };
        let mut rule = MatchRule::builder()
            .msg_type(MessageType::Signal)
            .sender(owner)
            .path(path)
            .interface(interface);
        if let Some(member) = member {
            rule = rule.member(member);
        }
        let rule = rule.build().map_err(subscribe)?;
        MessageStream::for_match_rule(rule, &self.conn, None)
            .await
            .map_err(subscribe)
    }

    /// `interface`'s CreateSession (tokens named after `what`), waited for up to `timeout`:
    /// the new session's handle.
    pub(super) async fn create_session(
        &self,
        owner: &str,
        interface: &'static str,
        what: &str,
        timeout: Duration,
    ) -> Result<String, PortalError> {
        let create_token = token(&format!("{what}_create"));
        let session_token = token(&format!("{what}_session"));
        let options = HashMap::from([
            ("handle_token", Variant::from(create_token.as_str())),
            (
                "session_handle_token",
                Variant::from(session_token.as_str()),
            ),
        ]);
        let created = self
            .request(
                "CreateSession",
                owner,
                interface,
                &create_token,
                &(options,),
                Some(timeout),
            )
            .await?;
        session_handle("CreateSession", &created)
    }

    /// Calls `method` of the portal `interface` with `body` (whose options hold
    /// `handle_token: token`) and waits up to `timeout` (`None`: as long as it takes) for its
    /// response: the results when granted, the response's error otherwise.
    pub(super) async fn request<B>(
        &self,
        call: &'static str,
        owner: &str,
        interface: &'static str,
        token: &str,
        body: &B,
        timeout: Option<Duration>,
    ) -> Result<Results, PortalError>
    where
        B: serde::Serialize + zbus::DynamicType,
    {
        let failed = |e: zbus::Error| PortalError::Call {
            call,
            message: e.to_string(),
        };
        // Subscribed before the call: the response may come before the call's reply.
        let predicted = request_path(&self.sender_element()?, token);
        let mut responses = self
            .signals(owner, &predicted, REQUEST_IFACE, Some("Response"))
            .await?;
        let reply = self
            .conn
            .call_method(Some(DESKTOP), DESKTOP_PATH, Some(interface), call, body)
            .await
            .map_err(failed)?;
        let handle: OwnedObjectPath = reply.body().deserialize().map_err(|e| malformed(call, e))?;
        if handle.as_str() != predicted {
            // A portal older than 0.9 chooses its own path: listen there (a response sent
            // before this subscription would be missed, as with every client of such portals).
            responses = self
                .signals(owner, handle.as_str(), REQUEST_IFACE, Some("Response"))
                .await?;
        }
        let response = match timeout {
            Some(limit) => {
                let deadline = Latch::new();
                deadline.set_after(limit);
                let response = next_or(&mut responses, &deadline).await;
                deadline.set(); // ends its timer thread
                response.ok_or(PortalError::TimedOut {
                    call,
                    seconds: limit.as_secs(),
                })?
            }
            None => next_or(&mut responses, &Latch::new())
                .await
                .ok_or(PortalError::SessionClosed)?,
        };
        let message = response.map_err(failed)?;
        let (code, results): (u32, Results) = message
            .body()
            .deserialize()
            .map_err(|e| malformed(call, e))?;
        match code {
            0 => Ok(results),
            1 => Err(PortalError::Cancelled(call)),
            2 => Err(PortalError::Refused(call)),
            code => Err(PortalError::UnknownResponse { call, code }),
        }
    }

    /// Closes a session (best effort: a session the portal already closed is no error worth
    /// telling anyone about).
    pub(super) async fn close_session(&self, session: &str) {
        let closed = self
            .conn
            .call_method(Some(DESKTOP), session, Some(SESSION_IFACE), "Close", &())
            .await;
        if let Err(e) = closed {
            tracing::debug!(session, "portal session close: {e}");
        }
    }
}

/// A handle token unique in this process ("wd_<what>_<n>": letters, digits and underscores, as
/// object-path elements need).
pub(super) fn token(what: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(1);
    format!("wd_{what}_{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// ":1.42" → "1_42", as the portal writes the sender in request and session paths.
pub(super) fn sender_path_element(unique_name: &str) -> String {
    unique_name.trim_start_matches(':').replace('.', "_")
}

/// Where the portal puts the request with `token` for the sender `sender_element`.
pub(super) fn request_path(sender_element: &str, token: &str) -> String {
    format!("{DESKTOP_PATH}/request/{sender_element}/{token}")
}

pub(super) fn malformed(call: &'static str, detail: impl ToString) -> PortalError {
    PortalError::Malformed {
        call,
        detail: detail.to_string(),
    }
}

/// The session handle of a CreateSession response: an object path (as the specification says)
/// or a string (as RemoteDesktop's older backends send it).
pub(super) fn session_handle(call: &'static str, results: &Results) -> Result<String, PortalError> {
    let value = results
        .get("session_handle")
        .ok_or_else(|| malformed(call, "no session_handle"))?;
    match unwrap_variant(value) {
        Variant::ObjectPath(path) => Ok(path.to_string()),
        Variant::Str(text) if zbus::ObjectPath::try_from(text.as_str()).is_ok() => {
            Ok(text.to_string())
        }
        other => Err(malformed(
            call,
            format!("session_handle is {}", other.value_signature()),
        )),
    }
}

/// A variant's value, through any variants wrapped around it.
pub(super) fn unwrap_variant<'v>(value: &'v Variant<'v>) -> &'v Variant<'v> {
    match value {
        Variant::Variant(inner) => unwrap_variant(inner),
        other => other,
    }
}

/// The next message of `stream`, or `None` when `latch` is set first (or the stream ended).
pub(super) async fn next_or(
    stream: &mut MessageStream,
    latch: &Latch,
) -> Option<zbus::Result<Message>> {
    poll_fn(|cx| {
        if let Poll::Ready(next) = Pin::new(&mut *stream).poll_next(cx) {
            return Poll::Ready(next);
        }
        latch.poll_set(cx).map(|()| None)
    })
    .await
}

/// A one-shot signal between threads: set once, seen by every waiter, in a future
/// ([`poll_set`](Self::poll_set)) or on a timer thread that sets it when its time is up.
#[derive(Clone, Default)]
pub(super) struct Latch(Arc<LatchInner>);

#[derive(Default)]
struct LatchInner {
    state: Mutex<LatchState>,
    changed: Condvar,
}

#[derive(Default)]
struct LatchState {
    set: bool,
    waker: Option<Waker>,
}

impl Latch {
    pub(super) fn new() -> Latch {
        Latch::default()
    }

    fn state(&self) -> MutexGuard<'_, LatchState> {
        self.0.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Sets it: wakes the future waiting on it and the timer thread.
    pub(super) fn set(&self) {
        let waker = {
            let mut state = self.state();
            state.set = true;
            state.waker.take()
        };
        self.0.changed.notify_all();
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    /// Ready once set; otherwise the task is woken when it is.
    pub(super) fn poll_set(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut state = self.state();
        if state.set {
            return Poll::Ready(());
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }

    /// Sets it after `delay` unless it is set before (which ends the timer thread at once).
    /// Without a thread to time it (the OS refused one) it is set at once: a wait with an
    /// unkept limit would be unbounded.
    pub(super) fn set_after(&self, delay: Duration) {
        let latch = self.clone();
        let spawned = std::thread::Builder::new()
            .name("portal-deadline".into())
            .spawn(move || {
                let state = latch.state();
                let waited = latch.0.changed.wait_timeout_while(state, delay, |s| !s.set);
                drop(waited);
                latch.set();
            });
        if spawned.is_err() {
            self.set();
        }
    }
}

/// A future that is ready once `latch` is set.
#[cfg(test)]
fn latch_set(latch: &Latch) -> impl std::future::Future<Output = ()> + '_ {
    poll_fn(move |cx| latch.poll_set(cx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_paths_are_the_senders_name_and_the_token() {
        assert_eq!(sender_path_element(":1.42"), "1_42");
        assert_eq!(
            request_path("1_42", "wd_bind_3"),
            "/org/freedesktop/portal/desktop/request/1_42/wd_bind_3"
        );
        let a = token("x");
        let b = token("x");
        assert_ne!(a, b);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    }

    fn owned(value: Variant<'_>) -> OwnedVariant {
        OwnedVariant::try_from(value).unwrap()
    }

    #[test]
    fn a_session_handle_is_an_object_path_or_a_string_holding_one() {
        let mut results = Results::new();
        assert!(matches!(
            session_handle("CreateSession", &results),
            Err(PortalError::Malformed { .. })
        ));
        let path =
            zbus::ObjectPath::try_from("/org/freedesktop/portal/desktop/session/1_2/s").unwrap();
        results.insert("session_handle".into(), OwnedVariant::from(path.clone()));
        assert_eq!(
            session_handle("CreateSession", &results).unwrap(),
            path.as_str()
        );
        results.insert("session_handle".into(), owned(Variant::from(path.as_str())));
        assert_eq!(
            session_handle("CreateSession", &results).unwrap(),
            path.as_str()
        );
        results.insert("session_handle".into(), owned(Variant::from("not a path")));
        assert!(session_handle("CreateSession", &results).is_err());
        results.insert("session_handle".into(), OwnedVariant::from(7u32));
        assert!(session_handle("CreateSession", &results).is_err());
    }

    #[test]
    fn a_latch_set_after_a_delay_wakes_its_waiter() {
        let latch = Latch::new();
        latch.set_after(Duration::from_millis(20));
        zbus::block_on(latch_set(&latch));
        let early = Latch::new();
        early.set_after(Duration::from_secs(600));
        early.set();
        zbus::block_on(latch_set(&early));
    }
}
