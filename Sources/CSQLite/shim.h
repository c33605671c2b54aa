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

// MARK: The preupdate hook and the session extension, looked up at run time
//
// Sync (Sources/Bindery/Sync) records changes with SQLite's preupdate hook and applies them with the
// session extension's changeset functions. sqlite3.h declares them only when
// SQLITE_ENABLE_PREUPDATE_HOOK and SQLITE_ENABLE_SESSION are defined, and a library compiled without
// them lacks them: declared here as weak references, each is NULL in a process whose SQLite does not
// export it, so that the package links and runs everything else on such a library. Every call goes
// through a wrapper below that checks for NULL; `bindery_session_missing_option` tells which compile
// option is missing.
typedef struct sqlite3_changeset_iter sqlite3_changeset_iter;
// The conflict kinds and answers of a changeset's conflict handler (from sqlite3.h's session part).
#define BINDERY_CHANGESET_DATA 1
#define BINDERY_CHANGESET_NOTFOUND 2
#define BINDERY_CHANGESET_CONFLICT 3
#define BINDERY_CHANGESET_CONSTRAINT 4
#define BINDERY_CHANGESET_FOREIGN_KEY 5
#define BINDERY_CHANGESET_OMIT 0
#define BINDERY_CHANGESET_REPLACE 1
#define BINDERY_CHANGESET_ABORT 2
typedef void (*bindery_preupdate_callback)(
    void *, sqlite3 *, int, const char *, const char *, sqlite3_int64, sqlite3_int64);
extern void *sqlite3_preupdate_hook(sqlite3 *, bindery_preupdate_callback, void *) __attribute__((weak));
extern int sqlite3_preupdate_old(sqlite3 *, int, sqlite3_value **) __attribute__((weak));
extern int sqlite3_preupdate_new(sqlite3 *, int, sqlite3_value **) __attribute__((weak));
extern int sqlite3_preupdate_count(sqlite3 *) __attribute__((weak));
extern int sqlite3_preupdate_depth(sqlite3 *) __attribute__((weak));
extern int sqlite3_preupdate_blobwrite(sqlite3 *) __attribute__((weak));
extern int sqlite3changeset_apply_v2(
    sqlite3 *, int, void *, int (*)(void *, const char *), int (*)(void *, int, sqlite3_changeset_iter *),
    void *, void **, int *, int) __attribute__((weak));
extern int sqlite3changeset_op(sqlite3_changeset_iter *, const char **, int *, int *, int *) __attribute__((weak));
extern int sqlite3changeset_old(sqlite3_changeset_iter *, int, sqlite3_value **) __attribute__((weak));
extern int sqlite3changeset_new(sqlite3_changeset_iter *, int, sqlite3_value **) __attribute__((weak));
extern int sqlite3changeset_conflict(sqlite3_changeset_iter *, int, sqlite3_value **) __attribute__((weak));
extern int sqlite3changeset_fk_conflicts(sqlite3_changeset_iter *, int *) __attribute__((weak));

// The compile-time option this SQLite lacks for sync ("SQLITE_ENABLE_SESSION" or
// "SQLITE_ENABLE_PREUPDATE_HOOK"), or NULL when recording and applying changesets work.
static inline const char *bindery_session_missing_option(void) {
    if (!sqlite3_compileoption_used("SQLITE_ENABLE_PREUPDATE_HOOK") || !sqlite3_preupdate_hook
        || !sqlite3_preupdate_old || !sqlite3_preupdate_new || !sqlite3_preupdate_count
        || !sqlite3_preupdate_depth || !sqlite3_preupdate_blobwrite) {
        return "SQLITE_ENABLE_PREUPDATE_HOOK";
    }
    if (!sqlite3_compileoption_used("SQLITE_ENABLE_SESSION") || !sqlite3changeset_apply_v2 || !sqlite3changeset_op
        || !sqlite3changeset_old || !sqlite3changeset_new || !sqlite3changeset_conflict
        || !sqlite3changeset_fk_conflicts) {
        return "SQLITE_ENABLE_SESSION";
    }
    return 0;
}

// Sets the connection's preupdate hook (NULL removes it); SQLITE_MISUSE without the hook.
static inline int bindery_preupdate_hook(sqlite3 *db, bindery_preupdate_callback callback, void *context) {
    if (!sqlite3_preupdate_hook) return SQLITE_MISUSE;
    sqlite3_preupdate_hook(db, callback, context);
    return SQLITE_OK;
}

// The functions a preupdate callback calls; the hook is only set when they all exist.
static inline int bindery_preupdate_old(sqlite3 *db, int column, sqlite3_value **value) {
    return sqlite3_preupdate_old ? sqlite3_preupdate_old(db, column, value) : SQLITE_MISUSE;
}

static inline int bindery_preupdate_new(sqlite3 *db, int column, sqlite3_value **value) {
    return sqlite3_preupdate_new ? sqlite3_preupdate_new(db, column, value) : SQLITE_MISUSE;
}

static inline int bindery_preupdate_count(sqlite3 *db) {
    return sqlite3_preupdate_count ? sqlite3_preupdate_count(db) : 0;
}

static inline int bindery_preupdate_depth(sqlite3 *db) {
    return sqlite3_preupdate_depth ? sqlite3_preupdate_depth(db) : 0;
}

static inline int bindery_preupdate_blobwrite(sqlite3 *db) {
    return sqlite3_preupdate_blobwrite ? sqlite3_preupdate_blobwrite(db) : -1;
}

// Applies a changeset in a savepoint of its own, calling `conflict` with `context` for each conflict.
static inline int bindery_changeset_apply(
    sqlite3 *db, int count, void *bytes, int (*conflict)(void *, int, sqlite3_changeset_iter *), void *context) {
    if (!sqlite3changeset_apply_v2) return SQLITE_MISUSE;
    return sqlite3changeset_apply_v2(db, count, bytes, 0, conflict, context, 0, 0, 0);
}

static inline int bindery_changeset_op(
    sqlite3_changeset_iter *iterator, const char **table, int *columns, int *operation) {
    int indirect = 0;
    return sqlite3changeset_op ? sqlite3changeset_op(iterator, table, columns, operation, &indirect) : SQLITE_MISUSE;
}

static inline int bindery_changeset_old(sqlite3_changeset_iter *iterator, int column, sqlite3_value **value) {
    return sqlite3changeset_old ? sqlite3changeset_old(iterator, column, value) : SQLITE_MISUSE;
}

static inline int bindery_changeset_new(sqlite3_changeset_iter *iterator, int column, sqlite3_value **value) {
    return sqlite3changeset_new ? sqlite3changeset_new(iterator, column, value) : SQLITE_MISUSE;
}

static inline int bindery_changeset_conflict(sqlite3_changeset_iter *iterator, int column, sqlite3_value **value) {
    return sqlite3changeset_conflict ? sqlite3changeset_conflict(iterator, column, value) : SQLITE_MISUSE;
}

static inline int bindery_changeset_fk_conflicts(sqlite3_changeset_iter *iterator, int *count) {
    return sqlite3changeset_fk_conflicts ? sqlite3changeset_fk_conflicts(iterator, count) : SQLITE_MISUSE;
}


// MARK: Loading Litestream's VFS extension (LitestreamVFS.swift)
//
// Apple's SQLite outside macOS is built without sqlite3_load_extension, as is any SQLite compiled with
// SQLITE_OMIT_LOAD_EXTENSION: there this returns SQLITE_ERROR with a message saying so.
#if defined(__APPLE__)
#include <TargetConditionals.h>
#endif
static inline int bindery_load_extension(sqlite3 *db, const char *file, const char *entry, char **error) {
#if defined(SQLITE_OMIT_LOAD_EXTENSION) || (defined(__APPLE__) && !TARGET_OS_OSX)
    (void)db; (void)file; (void)entry;
    if (error) {
        *error = sqlite3_mprintf("this platform's SQLite cannot load extensions");
    }
    return SQLITE_ERROR;
#else
    return sqlite3_load_extension(db, file, entry, error);
#endif
}

// MARK: Child processes (ChildProcess.swift)
//
// Foundation's Process.run() on Linux (swift-corelibs-foundation up to Swift 6.3) reads each entry of
// /proc/self/fd with a 256-byte copy of `d_name`, past the end of glibc's buffer: the process crashes
// now and then with SIGSEGV (swiftlang/swift-corelibs-foundation#5472). Bindery starts processes with
// posix_spawn here instead, on every platform.

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#if defined(__linux__)
// glibc 2.34 and later; declared weak so that the package links against an older one (every descriptor
// is then inherited but 0, 1 and 2's replacements).
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int) __attribute__((weak));
#endif

// Starts the program at `path` with the `argc` arguments in `args` (each NUL-terminated, one after the
// other, the program's name first) and the `envc` entries ("NAME=value", the same way) in `env`, with
// `in`, `out` and `err` as its standard input, output and error, every other descriptor closed, no
// signal blocked and every signal's action the default. Returns 0 and the child's id in `pid`, or an
// errno value (the program could not be started: nothing runs).
static inline int bindery_spawn(
    const char *path, const char *args, int argc, const char *env, int envc, int in, int out, int err, int *pid) {
    char **argv = calloc((size_t)argc + 1, sizeof(char *));
    char **envp = calloc((size_t)envc + 1, sizeof(char *));
    if (!argv || !envp) {
        free(argv);
        free(envp);
        return ENOMEM;
    }
    for (int i = 0; i < argc; i++, args += strlen(args) + 1) argv[i] = (char *)args;
    for (int i = 0; i < envc; i++, env += strlen(env) + 1) envp[i] = (char *)env;
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int code = posix_spawn_file_actions_init(&actions);
    if (code == 0) {
        code = posix_spawnattr_init(&attributes);
        if (code == 0) {
            short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
#if defined(__APPLE__)
            flags |= POSIX_SPAWN_CLOEXEC_DEFAULT;
#endif
            sigset_t none, all;
            sigemptyset(&none);
            sigfillset(&all);
            sigdelset(&all, SIGKILL);
            sigdelset(&all, SIGSTOP);
            posix_spawnattr_setsigmask(&attributes, &none);
            posix_spawnattr_setsigdefault(&attributes, &all);
            posix_spawnattr_setflags(&attributes, flags);
            posix_spawn_file_actions_adddup2(&actions, in, 0);
            posix_spawn_file_actions_adddup2(&actions, out, 1);
            posix_spawn_file_actions_adddup2(&actions, err, 2);
#if defined(__linux__)
            if (posix_spawn_file_actions_addclosefrom_np) {
                posix_spawn_file_actions_addclosefrom_np(&actions, 3);
            }
#endif
            pid_t child = 0;
            code = posix_spawn(&child, path, &actions, &attributes, argv, envp);
            if (code == 0) *pid = (int)child;
            posix_spawnattr_destroy(&attributes);
        }
        posix_spawn_file_actions_destroy(&actions);
    }
    free(argv);
    free(envp);
    return code;
}

// Waits until the child `pid` has ended, without collecting it (it stays a zombie, so that its id is not
// given to another process before bindery_collect). Returns 0, or an errno value.
static inline int bindery_wait_for_end(int pid) {
    siginfo_t info;
    while (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) != 0) {
        if (errno != EINTR) return errno;
    }
    return 0;
}

// Collects the ended child `pid`: its exit status, 128 + the signal that ended it, or -1.
static inline int bindery_collect(int pid) {
    int status = 0;
    while (waitpid((pid_t)pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

#endif
