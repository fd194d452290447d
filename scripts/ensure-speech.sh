#!/usr/bin/env bash
# The voice tests render announcements with Debian's espeak-ng and measure the
# audio with sox (`sox FILE -n stat`). Install both with apt-get when missing
# and we are root; otherwise the voice tests skip with the reason.
exec "$(dirname "$0")/ensure-debian.sh" "the voice tests" espeak-ng=espeak-ng sox=sox
