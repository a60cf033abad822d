#ifndef UTENSIL_SQLITE_GUARD_H
#define UTENSIL_SQLITE_GUARD_H

#include <sqlite3.h>

// sqlite3_db_config() is variadic, which Swift cannot call: fixed-arity wrappers.

/// Hardens a connection to a database file that is not trusted (a backup's catalog): defensive
/// mode (no writable schema, no shadow-table writes), its schema not trusted (no function with
/// side effects from it), and no trigger fired nor view read at all. Takes the `sqlite3 *` as
/// `void *`, so that no SQLite type of this module meets GRDB's. 0 when every setting took,
/// otherwise the SQLite result code of the first that did not (SQLITE_ERROR when it read back
/// other than set).
static inline int utensil_sqlite_harden(void *connection) {
    sqlite3 *db = (sqlite3 *)connection;
    const int settings[4][2] = {
        { SQLITE_DBCONFIG_DEFENSIVE, 1 },
        { SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0 },
        { SQLITE_DBCONFIG_ENABLE_TRIGGER, 0 },
        { SQLITE_DBCONFIG_ENABLE_VIEW, 0 },
    };
    for (int index = 0; index < 4; index++) {
        int now = -1;
        int result = sqlite3_db_config(db, settings[index][0], settings[index][1], &now);
        if (result != SQLITE_OK) return result;
        if (now != settings[index][1]) return SQLITE_ERROR;
    }
    return SQLITE_OK;
}

#endif
