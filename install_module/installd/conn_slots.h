/*
 * Connection slots of postern-installd: which forked handlers exist, for
 * whom (the uid from SO_PEERCRED, nothing the client says), and which of
 * them only wait for a module lock.
 *
 * Three bounds, so that no user can make others wait:
 *  - CONN_SLOTS_MAX handlers at most, whatever they do: a hard bound on forks;
 *  - CONN_SLOTS_ACTIVE_MAX handlers doing work; one that waits for a module
 *    lock does not count here (it uses no CPU and blocks nobody else);
 *  - CONN_SLOTS_PER_UID connections per uid, waiting or not, so one user's
 *    idle or waiting connections cannot take the slots of another user.
 *
 * The waiting flags live in a shared anonymous mapping: each handler writes
 * its own flag, the accept loop reads them. The handlers are the daemon's
 * own code; the mapping carries one flag per slot and nothing else.
 */
#ifndef POSTERN_CONN_SLOTS_H
#define POSTERN_CONN_SLOTS_H

#include <stdbool.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "errmsg.h"

#define CONN_SLOTS_MAX 256
#define CONN_SLOTS_ACTIVE_MAX 64
#define CONN_SLOTS_PER_UID 8

struct conn_slot {
	pid_t pid;         /* 0: free */
	uid_t uid;
	bool is_connection; /* false: a handler for no user (mirror_sync) */
};

struct conn_slots {
	struct conn_slot slot[CONN_SLOTS_MAX];
	atomic_uchar *waiting; /* CONN_SLOTS_MAX flags, shared with the handlers */
};

/* Map the shared flags; every slot free. */
int conn_slots_init(struct conn_slots *s, struct pst_err *e);
void conn_slots_fini(struct conn_slots *s);

/* Whether one more handler may start now (total and active bounds). */
bool conn_slots_room(const struct conn_slots *s);

/* Connections of uid that are still served (waiting ones included). */
unsigned conn_slots_of_uid(const struct conn_slots *s, uid_t uid);

/* Handlers of any kind, waiting or not. */
unsigned conn_slots_used(const struct conn_slots *s);

/* Handlers that count against CONN_SLOTS_ACTIVE_MAX. */
unsigned conn_slots_active(const struct conn_slots *s);

/*
 * Reserve a slot for a handler of uid (is_connection false: for nobody);
 * returns its index, or -1 when there is no room. Give it its pid with
 * conn_slots_set_pid() once forked, or conn_slots_free() it if fork failed.
 */
int conn_slots_take(struct conn_slots *s, uid_t uid, bool is_connection);
void conn_slots_set_pid(struct conn_slots *s, int idx, pid_t pid);
void conn_slots_free(struct conn_slots *s, int idx);

/* The handler pid ended: free its slot. False when pid held none. */
bool conn_slots_free_pid(struct conn_slots *s, pid_t pid);

/* In the forked handler: its slot is idx (its flag is the one it writes). */
void conn_slot_enter_handler(const struct conn_slots *s, int idx);

/*
 * In the handler: it starts (true) or stops (false) waiting for a module
 * lock. Outside a handler (start-up recovery, --reindex) it does nothing.
 */
void conn_slot_waiting(bool waiting);

#endif
