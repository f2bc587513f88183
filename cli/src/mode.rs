//! What one invocation does ([`Mode`]), made from the command line once and run by one
//! dispatcher.

use cu_core::config::Config;
use cu_core::error::{Error, ExitCode as CuExit};
use cu_tools::Service;

use crate::args::{Cli, Command};
use crate::{commands, health};

/// What one invocation does. The predecessor's flags and the subcommands are one grammar: clap
/// lets at most one mode through (`--health list` is a usage error), and it becomes exactly one
/// of these, dispatched once in [`Mode::run`].
pub(crate) enum Mode {
    /// No mode, or `serve` without `--http`: MCP over stdio, the way agents start us (with the
    /// health endpoint when `--health-http` or the configuration asks).
    Stdio { health_http: bool },
    /// `--health`.
    Health,
    /// `--ask QUESTION [--app APP] [--image-out FILE] [--session CLIENT ID]`.
    Ask {
        request: cu_tools::LookRequest,
        image_out: Option<std::path::PathBuf>,
    },
    /// `--release`.
    Release,
    /// `--click APP LABEL` or `--click-steps APP L1 L2…`.
    Click(cu_tools::ClickRequest),
    /// `--type APP TARGET TEXT`.
    Type(cu_tools::TypeRequest),
    /// A subcommand.
    Command(Command),
}

impl Mode {
    pub(crate) fn from_cli(cli: Cli) -> Mode {
        let confirm_dangerous = cli.confirm_dangerous;
        if cli.health {
            return Mode::Health;
        }
        if let Some(question) = cli.ask {
            let (client, session_id) = match cli.session.as_deref() {
                Some([client, id]) => (Some(client.clone()), Some(id.clone())),
                _ => (None, None),
            };
            return Mode::Ask {
                request: cu_tools::LookRequest {
                    question,
                    app: cli.app,
                    client,
                    session_id,
                    include_image: cli.image_out.is_some(),
                    keep_warm: false,
                },
                image_out: cli.image_out,
            };
        }
        if cli.release {
            return Mode::Release;
        }
        if let Some([app, label]) = cli.click.as_deref() {
            return Mode::Click(cu_tools::ClickRequest {
                app: app.clone(),
                target: Some(label.clone()),
                steps: None,
                confirm_dangerous,
                ..Default::default()
            });
        }
        if let Some([app, steps @ ..]) = cli.click_steps.as_deref() {
            return Mode::Click(cu_tools::ClickRequest {
                app: app.clone(),
                target: None,
                steps: Some(steps.to_vec()),
                confirm_dangerous,
                ..Default::default()
            });
        }
        if let Some([app, target, text]) = cli.type_text.as_deref() {
            return Mode::Type(cu_tools::TypeRequest {
                app: app.clone(),
                target: target.clone(),
                text: text.clone(),
                confirm_dangerous,
            });
        }
        match cli.command {
            None => Mode::Stdio {
                health_http: cli.health_http,
            },
            Some(command) => Mode::Command(command),
        }
    }

    /// The one service this invocation uses.
    pub(crate) fn service(&self, config: Config) -> Service {
        let backend = cu_backends::platform_backend();
        match self {
            // A worker marks its states with this process's life.
            Mode::Command(Command::Worker(_)) => Service::for_worker(backend, config),
            _ => Service::new(backend, config),
        }
    }

    /// Runs this invocation: the one dispatcher, one function per mode and command.
    pub(crate) async fn run(self, service: Service) -> Result<CuExit, Error> {
        match self {
            Mode::Stdio { health_http } => commands::stdio(service, health_http).await,
            Mode::Health => health::run(service).await,
            Mode::Ask { request, image_out } => {
                commands::ask(&service, request, image_out.as_deref()).await
            }
            Mode::Release => commands::release(&service).await,
            Mode::Click(request) => commands::click(&service, request).await,
            Mode::Type(request) => commands::type_text(&service, request).await,
            Mode::Command(Command::List) => commands::list(&service).await,
            Mode::Command(Command::State(args)) => commands::state(&service, args).await,
            Mode::Command(Command::Act(args)) => commands::act(&service, args).await,
            Mode::Command(Command::Serve(args)) => commands::serve(service, args).await,
            Mode::Command(Command::Worker(args)) => commands::worker(service, args).await,
            Mode::Command(Command::Webui(args)) => commands::webui(service, args).await,
            Mode::Command(Command::Call(args)) => commands::call(service, args).await,
            Mode::Command(Command::DesktopCall(args)) => {
                commands::desktop_call(service, args).await
            }
            Mode::Command(Command::Open(args)) => commands::open(&service, args).await,
            Mode::Command(Command::Selftest(args)) => commands::selftest(&service, args).await,
            Mode::Command(Command::Snapshot(args)) => commands::snapshot(&service, args).await,
        }
    }
}
