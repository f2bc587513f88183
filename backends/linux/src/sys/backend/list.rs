//! Listing windows: every application's accessible frames joined with the window system's
//! windows ([`crate::listing`] is the pure join), a hung application given a bounded wait.

use cu_core::model::geometry::Rect;
use cu_core::model::window::{WindowId, WindowInfo};
use cu_core::Result;

use super::connected::{blocking, Connected, InputPath};
use super::state::{AppWait, Frame, Listed, WindowEntry};
use crate::listing;
use crate::sys::atspi::ObjRef;
use crate::translate::{atspi_role, atspi_state, Toolkit};

impl Connected {
    /// Lists windows and refreshes the id map.
    pub(super) async fn list(&self, wait: AppWait) -> Result<Vec<WindowInfo>> {
        let (xwins, frames) = tokio::join!(self.x_windows(), self.atspi_frames(wait));
        let xwins = xwins?;
        let frames = frames?;
        for f in &frames {
            tracing::debug!(title = %f.facts.title, pid = ?f.facts.pid, showing = f.facts.showing, "accessible frame");
        }
        let active = match &self.input {
            InputPath::X11(x) => {
                let x = x.clone();
                blocking(move || Ok(x.active_window())).await?
            }
            _ => None,
        };
        let mut facts: Vec<listing::FrameFacts> = frames.iter().map(|f| f.facts.clone()).collect();
        let mut pairs = listing::join_x11(&xwins, &facts);
        let unsure = listing::frames_to_measure(&xwins, &facts, &pairs);
        if !unsure.is_empty() {
            let measured = futures_util::future::join_all(
                unsure.iter().map(|&fi| self.frame_extents(&frames[fi])),
            )
            .await;
            for (fi, extents) in unsure.into_iter().zip(measured) {
                facts[fi].extents = extents;
            }
            pairs = listing::join_x11(&xwins, &facts);
        }
        let mut entries: Vec<WindowEntry> = pairs
            .iter()
            .map(|&(ci, fi)| WindowEntry {
                frame: Some(frames[fi].obj.clone()),
                xid: Some(xwins[ci].id),
                toolkit: frames[fi].toolkit,
                info: listing::x11_window(&xwins[ci], Some(&facts[fi]), active),
            })
            .collect();
        // Every window a person sees is listed, with a tree or without.
        entries.extend(
            listing::frameless(&xwins, &pairs)
                .into_iter()
                .map(|ci| WindowEntry {
                    frame: None,
                    xid: Some(xwins[ci].id),
                    toolkit: Toolkit::default(),
                    info: listing::x11_window(&xwins[ci], None, active),
                }),
        );
        if !matches!(self.input, InputPath::X11(_)) {
            // No X11 (Wayland): the accessibility frames are the windows; positions are unknown.
            entries.extend(listing::wayland_frames(&facts).into_iter().map(|fi| {
                let f = &frames[fi];
                WindowEntry {
                    frame: Some(f.obj.clone()),
                    xid: None,
                    toolkit: Toolkit {
                        window_relative_extents: true,
                        ..f.toolkit
                    },
                    info: listing::wayland_window(
                        WindowId(format!("atspi:{}|{}", f.obj.bus, f.obj.path.as_str())),
                        &f.facts,
                    ),
                }
            }));
        }
        let out = entries.iter().map(|e| e.info.clone()).collect();
        self.windows.listed(entries);
        Ok(out)
    }
    /// Where a frame says it is (`None` when it does not answer).
    pub(super) async fn frame_extents(&self, frame: &Frame) -> Option<listing::Extents> {
        let (x, y, width, height) = self.atspi.extents(&frame.obj).await.ok()?;
        Some(if frame.toolkit.window_relative_extents {
            listing::Extents::WindowRelative { width, height }
        } else {
            listing::Extents::Screen(Rect::new(x, y, width, height))
        })
    }
    /// Every application's frames. With [`AppWait::Bounded`], an application that does not
    /// answer within [`APP_WAIT`] (busy, or hung) is listed with the frames it had at the last
    /// listing, so one hung app does not hold every listing for the bus's 3 s timeout; while it
    /// stays silent (no answer, no event since), it is given only [`SILENT_APP_WAIT`].
    pub(super) async fn atspi_frames(&self, wait: AppWait) -> Result<Vec<Frame>> {
        let apps = self.atspi.applications().await?;
        let per_app = apps.into_iter().map(|app| {
            let before = self
                .listed
                .lock()
                .ok()
                .and_then(|l| l.get(&app.bus).cloned());
            async move {
                let before = before.as_ref();
                let count = self.atspi.changes.count(&app.bus);
                let bus = app.bus.clone();
                let frames = match wait {
                    AppWait::Bounded => {
                        let within = Listed::wait(before, count);
                        let frames = tokio::time::timeout(within, self.app_frames(app)).await;
                        frames.ok()
                    }
                    AppWait::Patient => Some(self.app_frames(app).await),
                };
                let listed = match frames {
                    Some(frames) => Listed {
                        frames,
                        answered: true,
                        count,
                    },
                    None => {
                        tracing::debug!(
                            bus,
                            "an application did not answer the listing: its frames as last listed"
                        );
                        Listed {
                            frames: before.map(|b| b.frames.clone()).unwrap_or_default(),
                            answered: false,
                            count,
                        }
                    }
                };
                (bus, listed)
            }
        });
        // In the registry's order of applications, as the windows are listed.
        let listed = futures_util::future::join_all(per_app).await;
        let frames = listed.iter().flat_map(|(_, l)| l.frames.clone()).collect();
        if let Ok(mut kept) = self.listed.lock() {
            *kept = listed.into_iter().collect();
        }
        Ok(frames)
    }
    /// The frames of one application: its top-level children that are windows.
    pub(super) async fn app_frames(&self, app: ObjRef) -> Vec<Frame> {
        let (name, kids, pid, rel) = tokio::join!(
            self.atspi.name(&app),
            self.atspi.children(&app),
            self.atspi.pid_of(&app.bus),
            self.atspi.toolkit(&app),
        );
        let kids = kids.unwrap_or_else(|e| {
            tracing::debug!("application {} lists no windows: {}", app.bus, e.message);
            Vec::new()
        });
        let frames = kids.into_iter().map(|obj| {
            let app_name = name.clone().unwrap_or_default();
            async move {
                let (title, role, states) = tokio::join!(
                    self.atspi.name(&obj),
                    self.atspi.role(&obj),
                    self.atspi.states(&obj)
                );
                let role = match role {
                    Ok(r) => r,
                    Err(e) => {
                        tracing::debug!("skipping {}: {}", obj.path.as_str(), e.message);
                        return None;
                    }
                };
                if !matches!(
                    role,
                    atspi_role::FRAME
                        | atspi_role::WINDOW
                        | atspi_role::DIALOG
                        | atspi_role::ALERT
                        | atspi_role::FILE_CHOOSER
                        | atspi_role::FILLER
                        | atspi_role::PANEL
                ) {
                    return None;
                }
                let states = states.unwrap_or_default();
                Some(Frame {
                    obj,
                    toolkit: rel,
                    facts: listing::FrameFacts {
                        app_name,
                        title: title.unwrap_or_default(),
                        pid,
                        showing: states.has(atspi_state::SHOWING)
                            || states.has(atspi_state::VISIBLE),
                        active: states.has(atspi_state::ACTIVE),
                        iconified: states.has(atspi_state::ICONIFIED),
                        extents: None,
                    },
                })
            }
        });
        futures_util::future::join_all(frames)
            .await
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
    }
}
