// The swift-log handler adds CODE_FILE/CODE_LINE/CODE_FUNC of the Swift caller itself, so the
// C macros that would add the shim's own location to sd_journal_* calls are switched off.
#define SD_JOURNAL_SUPPRESS_LOCATION 1

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
