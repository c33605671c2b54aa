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

// sqlite3_config is variadic, which Swift cannot call. Turning memory statistics off removes a
// process-wide mutex taken on every allocation, so that connections on different threads do not
// contend. It must run before SQLite initializes; afterwards it returns SQLITE_MISUSE and changes
// nothing, which is harmless.
static inline int bindery_disable_memory_statistics(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

// sqlite3_db_config is variadic too. This form sets an on/off option (such as
// SQLITE_DBCONFIG_DQS_DML) to `value` and stores the setting now in force in `*result`.
static inline int bindery_db_config_flag(sqlite3 *db, int option, int value, int *result) {
    return sqlite3_db_config(db, option, value, result);
}

// Relaxed atomic access to a word of flags that one thread may set while another reads it (a
// connection's status: see ConnectionStatus.swift). Swift 6's `Atomic` needs macOS 15; these compile
// to a plain load and a locked `or`/`and`.
static inline unsigned int bindery_atomic_load(const unsigned int *word) {
    return __atomic_load_n(word, __ATOMIC_RELAXED);
}

static inline void bindery_atomic_or(unsigned int *word, unsigned int bits) {
    __atomic_fetch_or(word, bits, __ATOMIC_RELAXED);
}

static inline void bindery_atomic_and(unsigned int *word, unsigned int bits) {
    __atomic_fetch_and(word, bits, __ATOMIC_RELAXED);
}

// The interrupt of a connection (ConnectionStatus.swift): SQLite calls this every few hundred virtual
// machine instructions of a running statement, and a nonzero result stops that statement with
// SQLITE_INTERRUPT. Unlike sqlite3_interrupt, which stays in force until no statement of the
// connection is running (an open cursor keeps one running between its batches), this stops only
// while the flag is raised. `word` is the status word; 4 is its `interrupted` flag.
static int bindery_stop_if_interrupted(void *word) {
    return (__atomic_load_n((const unsigned int *)word, __ATOMIC_RELAXED) & 4u) != 0;
}

// Installs the check above on `db`, every `instructions` virtual machine instructions; a NULL `word`
// removes it.
static inline void bindery_watch_interrupts(sqlite3 *db, unsigned int *word, int instructions) {
    if (word) {
        sqlite3_progress_handler(db, instructions, bindery_stop_if_interrupted, word);
    } else {
        sqlite3_progress_handler(db, 0, 0, 0);
    }
}

#endif
