#ifndef BINDERY_CSQLITE_SHIM_H
#define BINDERY_CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_STATIC and SQLITE_TRANSIENT are macros that cast integers to function pointers, which Swift
// cannot import. These inline helpers give Swift the same destructors.
static inline sqlite3_destructor_type bindery_sqlite_transient(void) {
    return SQLITE_TRANSIENT;
}

static inline sqlite3_destructor_type bindery_sqlite_static(void) {
    return SQLITE_STATIC;
}

#endif
