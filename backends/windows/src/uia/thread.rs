//! The thread that owns COM and the `IUIAutomation` client.
//!
//! UI Automation clients must not call from a UI thread, and COM objects belong to the apartment
//! that made them. The backend therefore owns one thread, initialised for the multithreaded
//! apartment, that creates the client once and runs every UIA job in order; async callers wait
//! on a oneshot with a timeout, so a hung application costs a `TIMEOUT`, not a hung tool (the
//! backend then lets the stuck thread go and starts another).

use std::panic::AssertUnwindSafe;
use std::sync::mpsc;
use std::time::Duration;

use cu_core::{Error, ErrorCode, Result};
use uiautomation::UIAutomation;
use windows::Win32::System::Com::{CoInitializeEx, CoUninitialize, COINIT_MULTITHREADED};

type Job<C> = Box<dyn FnOnce(&C) + Send>;

/// A handle to the COM thread; dropping the last one ends the thread. `C` is the client the
/// thread makes once and hands to every job: `UIAutomation`, or a stand-in in tests.
pub(super) struct ComThread<C = UIAutomation> {
    jobs: mpsc::Sender<Job<C>>,
}

impl ComThread<UIAutomation> {
    /// Starts the thread and creates the UI Automation client on it.
    pub(super) fn start() -> Result<ComThread> {
        ComThread::start_with(|| {
            UIAutomation::new_direct().map_err(|e| {
                Error::new(
                    ErrorCode::GuiUnavailable,
                    format!("UI Automation is not available: {e}"),
                )
                .with_suggestion("Run on Windows 7 or later inside a desktop session; UI Automation (UIAutomationCore.dll) must be registered.")
            })
        })
    }
}

impl<C: 'static> ComThread<C> {
    /// Starts the thread, initialises COM on it and makes the client with `make`.
    pub(super) fn start_with(make: fn() -> Result<C>) -> Result<ComThread<C>> {
        let (jobs, inbox) = mpsc::channel::<Job<C>>();
        let (ready_tx, ready_rx) = mpsc::channel::<Result<()>>();
        std::thread::Builder::new()
            .name("uia-com".into())
            .spawn(move || serve(make, &inbox, &ready_tx))
            .map_err(|e| {
                Error::new(
                    ErrorCode::Internal,
                    format!("cannot start the COM thread: {e}"),
                )
            })?;
        match ready_rx.recv_timeout(Duration::from_secs(10)) {
            Ok(Ok(())) => Ok(ComThread { jobs }),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(Error::new(
                ErrorCode::GuiUnavailable,
                "UI Automation did not start within 10 s",
            )),
        }
    }

    /// Queues `job` on the COM thread without waiting for it (clean-up from `Drop`); a thread
    /// that has stopped drops it.
    pub(super) fn post(&self, job: impl FnOnce(&C) + Send + 'static) {
        let _ = self.jobs.send(Box::new(job));
    }

    /// Runs `job` on the COM thread and waits up to `timeout` for its answer.
    pub(super) async fn run<T: Send + 'static>(
        &self,
        timeout: Duration,
        job: impl FnOnce(&C) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (answer, reply) = tokio::sync::oneshot::channel();
        let job: Job<C> = Box::new(move |automation| {
            let result = std::panic::catch_unwind(AssertUnwindSafe(|| job(automation)))
                .unwrap_or_else(|_| {
                    Err(Error::new(
                        ErrorCode::Internal,
                        "a UI Automation call panicked",
                    ))
                });
            let _ = answer.send(result);
        });
        self.jobs
            .send(job)
            .map_err(|_| Error::new(ErrorCode::Internal, "the COM thread has stopped"))?;
        match tokio::time::timeout(timeout, reply).await {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => Err(Error::new(
                ErrorCode::Internal,
                "the COM thread has stopped",
            )),
            Err(_) => Err(Error::new(
                ErrorCode::Timeout,
                format!(
                    "UI Automation did not answer within {:.1} s",
                    timeout.as_secs_f64()
                ),
            )
            .with_suggestion(
                "The application may be busy or hung; try again, or observe another window.",
            )),
        }
    }
}

fn serve<C>(
    make: fn() -> Result<C>,
    inbox: &mpsc::Receiver<Job<C>>,
    ready: &mpsc::Sender<Result<()>>,
) {
    // SAFETY: first COM call on this new thread; balanced by CoUninitialize below once every
    // COM object made here (the client and anything a job created) has been dropped.
    let init = unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) };
    if init.is_err() {
        let _ = ready.send(Err(Error::new(
            ErrorCode::GuiUnavailable,
            format!("COM did not initialise: {}", init.message()),
        )));
        return;
    }
    match make() {
        Ok(client) => {
            let _ = ready.send(Ok(()));
            while let Ok(job) = inbox.recv() {
                job(&client);
            }
        }
        Err(e) => {
            let _ = ready.send(Err(e));
        }
    }
    // SAFETY: matches the successful CoInitializeEx above, on the same thread, after the client
    // was dropped.
    unsafe { CoUninitialize() };
}
