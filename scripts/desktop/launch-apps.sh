#!/usr/bin/env bash
# launch-apps.sh [DISPLAY_NUM] [APP...] — start fixture apps on the desktop of start-desktop.sh and
# wait until each is registered on AT-SPI. PIDs are appended to $STATE/pids (app_*), so
# stop-desktop.sh ends them. Prints "KEY=PID" per app on stdout.
# Apps: gtk3 gtk4 gtk4-dialog calc calc-he hebrew crash thunar kcalc chooser-gtk3 chooser-gtk4 chooser-qt5 chooser-kde lo-calc lo-writer zenity zenity-info zenity-entry mousepad featherpad qt5 qt6 biglist
#       firefox firefox-page:FILE firefox-settings firefox-todo chromium chromium-todo chromium-controls chromium-delayed chromium-table chromium-page:FILE, outline:PROFILE/NAME (tests/fixtures/extract/*.outline as a GTK window)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
FIX="$(cd "$HERE/../../tests/fixtures" && pwd)"
N="${1:-${DESKENV_DISPLAY:-57}}"; N="${N#:}"; shift || true
STATE="${DESKENV_STATE_DIR:-/tmp/deskenv-$N}"
[ -f "$STATE/env" ] || { echo "no $STATE/env — run start-desktop.sh $N first" >&2; exit 1; }
. "$STATE/env"
APPS=("$@"); [ ${#APPS[@]} -gt 0 ] || APPS=(gtk3 calc zenity qt6 firefox chromium)
PY=/usr/bin/python3
mkdir -p "$STATE/log" "$STATE/web"
cp "$FIX/fixture.html" "$STATE/web/fixture.html"
pids=()
run() { local key=$1; shift
  "$@" >"$STATE/log/app-$key.log" 2>&1 &
  local pid=$!
  echo "app_$key=$pid" >> "$STATE/pids"; pids+=("$pid"); echo "$key=$pid"; }
# chromium_on KEY PAGE X,Y W,H: Chromium with its own profile on tests/fixtures/PAGE.
chromium_on() { local key=$1 page=$2 pos=$3 size=$4
  cp "$FIX/${page%%\?*}" "$STATE/web/"
  run "$key" chromium --no-sandbox --disable-gpu --force-renderer-accessibility \
    --user-data-dir="$STATE/$key" --no-first-run --no-default-browser-check \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-default-apps --disable-extensions --disable-domain-reliability \
    --disable-breakpad --proxy-server=127.0.0.1:9 --password-store=basic \
    --window-size="$size" --window-position="$pos" "file://$STATE/web/$page"; }
for a in "${APPS[@]}"; do case $a in
  gtk3)       run gtk3 gtk3-widget-factory ;;
  gtk4)       run gtk4 env GSK_RENDERER=cairo gtk4-widget-factory ;;
  calc)       run calc gnome-calculator ;;
  calc-he)    run calc-he env LANGUAGE=he gnome-calculator ;;
  hebrew)     run hebrew $PY "$FIX/hebrew_fixture.py" ;;
  crash)      run crash $PY "$FIX/crash_fixture.py" ;;
  thunar)     run thunar thunar "${THUNAR_DIR:-$STATE}" ;;  # the folder to show: THUNAR_DIR
  kcalc)      run kcalc kcalc ;;
  chooser-gtk3|chooser-gtk4|chooser-qt5|chooser-kde)  # a Save dialog in CHOOSER_DIR
              run "$a" $PY "$FIX/file_chooser.py" "${a#chooser-}" "${CHOOSER_DIR:-$STATE}" ;;
  zenity-entry) run zenity-entry zenity --entry --title="Entry test" --text="Name:" ;;
  zenity)     run zenity zenity --question --title="Confirm delete" --text="Delete the file?" \
                --ok-label=Delete --cancel-label=Cancel ;;
  zenity-info) run zenity-info zenity --question --title="Details" --text="Show the information?" \
                --ok-label=Information --cancel-label=Cancel ;;
  mousepad)   run mousepad mousepad ;;
  featherpad) run featherpad featherpad --standalone ;;
  gtk4-dialog) run gtk4-dialog $PY "$FIX/gtk4_dialog.py" ;;
  qt5)        run qt5 $PY "$FIX/qt_fixture.py" 5 ;;
  qt6)        run qt6 $PY "$FIX/qt_fixture.py" 6 ;;
  biglist)    run biglist $PY "$FIX/qt_fixture.py" 5 --rows "${BIGLIST_ROWS:-5000}" ;;
  firefox)    mkdir -p "$STATE/ffprof"; cp "$FIX/firefox-user.js" "$STATE/ffprof/user.js"
              rm -f "$STATE/ffprof/lock" "$STATE/ffprof/.parentlock"  # left by a killed Firefox
              run firefox firefox-esr --no-remote --new-instance --profile "$STATE/ffprof" \
                "file://$STATE/web/fixture.html" ;;
  firefox-page:*)  # any tests/fixtures page, in a profile of its own
              prof="$STATE/ffprof-${a#firefox-page:}"; mkdir -p "$prof"; cp "$FIX/firefox-user.js" "$prof/user.js"
              cp "$FIX/${a#firefox-page:}" "$STATE/web/"; rm -f "$prof/lock" "$prof/.parentlock"
              run "$a" firefox-esr --no-remote --new-instance --profile "$prof" "file://$STATE/web/${a#firefox-page:}" ;;
  firefox-settings)  # Firefox's own settings page (markup we did not write), a fresh profile each time
              prof="$STATE/ffprof-settings"; rm -rf "$prof"; mkdir -p "$prof"; cp "$FIX/firefox-user.js" "$prof/user.js"
              run firefox-settings firefox-esr --no-remote --new-instance --profile "$prof" "about:preferences#privacy" ;;
  firefox-todo)  # the todo app active, the controls page in a background tab
              mkdir -p "$STATE/ffprof-todo"; cp "$FIX/firefox-user.js" "$STATE/ffprof-todo/user.js"
              cp "$FIX/todo.html" "$FIX/controls.html" "$STATE/web/"
              rm -f "$STATE/ffprof-todo/lock" "$STATE/ffprof-todo/.parentlock"
              run firefox-todo firefox-esr --no-remote --new-instance --profile "$STATE/ffprof-todo" \
                "file://$STATE/web/todo.html" "file://$STATE/web/controls.html" ;;
  chromium-todo)     chromium_on chromium-todo todo.html 220,130 1000,700 ;;
  chromium)          chromium_on chromium fixture.html 200,150 1000,700 ;;
  chromium-controls) chromium_on chromium-controls controls.html 250,120 1000,700 ;;
  chromium-delayed)  chromium_on chromium-delayed delayed.html 220,140 900,600 ;;
  chromium-table)    chromium_on chromium-table "big_table.html?rows=${TABLE_ROWS:-3000}" 200,100 1000,760 ;;
  chromium-page:*)   chromium_on "$a" "${a#chromium-page:}" 230,110 1000,760 ;;  # any tests/fixtures page
  lo-calc)    # LibreOffice Calc (GTK 3) on CALC_FILE, or a new sheet. soffice.bin itself, so the pid
              # is the app's, once a headless start made the profile (a first start restarts itself).
              [ -d "$STATE/lo-profile" ] || soffice --headless --terminate_after_init \
                "-env:UserInstallation=file://$STATE/lo-profile" >/dev/null 2>&1
              run lo-calc env SAL_USE_VCLPLUGIN=gtk3 /usr/lib/libreoffice/program/soffice.bin --norestore --nologo \
                "-env:UserInstallation=file://$STATE/lo-profile" --calc ${CALC_FILE:+"$CALC_FILE"} ;;
  lo-writer)  # LibreOffice Writer (GTK 3) on a new document, the profile made as for lo-calc.
              [ -d "$STATE/lo-profile" ] || soffice --headless --terminate_after_init \
                "-env:UserInstallation=file://$STATE/lo-profile" >/dev/null 2>&1
              run lo-writer env SAL_USE_VCLPLUGIN=gtk3 /usr/lib/libreoffice/program/soffice.bin --norestore --nologo \
                "-env:UserInstallation=file://$STATE/lo-profile" --writer ;;
  outline:*)  # a profile fixture as a live GTK window: outline:claude_code/working
              key="${a//[:\/]/-}"
              run "$key" $PY "$FIX/outline_window.py" "$FIX/extract/${a#outline:}.outline"
              echo "$a=${pids[-1]}" ;;
  *) echo "unknown app $a" >&2; exit 2 ;;
esac; done
$PY "$HERE/atspi_wait.py" "${pids[@]}" --timeout "${DESKENV_APP_TIMEOUT:-60}" 2>&1 | grep -v dbind-WARNING >&2
