/*
 * The accept loop's bookkeeping of its handlers (see conn_slots.h). It
 * MUST count only what the kernel says (pid from fork, uid from
 * SO_PEERCRED); it never decides anything about a request.
 */
#include "conn_slots.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

/* The handler's own flag; NULL outside a handler. */
static atomic_uchar *own_waiting_flag;

int conn_slots_init(struct conn_slots *s, struct pst_err *e)
{
	void *map = mmap(NULL, CONN_SLOTS_MAX * sizeof(atomic_uchar), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	memset(s->slot, 0, sizeof(s->slot));
	s->waiting = NULL;
	if (map == MAP_FAILED)
		return pst_fail(e, errno, "cannot map the connection slot flags: %s", strerror(errno));
	s->waiting = map;
	for (int i = 0; i < CONN_SLOTS_MAX; i++)
		atomic_store(&s->waiting[i], 0);
	return 0;
}

void conn_slots_fini(struct conn_slots *s)
{
	if (s->waiting != NULL)
		munmap(s->waiting, CONN_SLOTS_MAX * sizeof(atomic_uchar));
	s->waiting = NULL;
}

static bool slot_used(const struct conn_slots *s, int i)
{
	return s->slot[i].pid != 0;
}

unsigned conn_slots_active(const struct conn_slots *s)
{
	unsigned n = 0;

	for (int i = 0; i < CONN_SLOTS_MAX; i++)
		n += slot_used(s, i) && !atomic_load(&s->waiting[i]);
	return n;
}

unsigned conn_slots_used(const struct conn_slots *s)
{
	unsigned n = 0;

	for (int i = 0; i < CONN_SLOTS_MAX; i++)
		n += slot_used(s, i);
	return n;
}

bool conn_slots_room(const struct conn_slots *s)
{
	return conn_slots_used(s) < CONN_SLOTS_MAX && conn_slots_active(s) < CONN_SLOTS_ACTIVE_MAX;
}

unsigned conn_slots_of_uid(const struct conn_slots *s, uid_t uid)
{
	unsigned n = 0;

	for (int i = 0; i < CONN_SLOTS_MAX; i++)
		n += slot_used(s, i) && s->slot[i].is_connection && s->slot[i].uid == uid;
	return n;
}

int conn_slots_take(struct conn_slots *s, uid_t uid, bool is_connection)
{
	if (!conn_slots_room(s))
		return -1;
	for (int i = 0; i < CONN_SLOTS_MAX; i++) {
		if (slot_used(s, i))
			continue;
		/* Reserved until the fork gives it a pid; -1 is never a handler's. */
		s->slot[i] = (struct conn_slot){ .pid = -1, .uid = uid, .is_connection = is_connection };
		atomic_store(&s->waiting[i], 0);
		return i;
	}
	return -1;
}

void conn_slots_set_pid(struct conn_slots *s, int idx, pid_t pid)
{
	s->slot[idx].pid = pid;
}

void conn_slots_free(struct conn_slots *s, int idx)
{
	s->slot[idx] = (struct conn_slot){ 0 };
	atomic_store(&s->waiting[idx], 0);
}

bool conn_slots_free_pid(struct conn_slots *s, pid_t pid)
{
	for (int i = 0; i < CONN_SLOTS_MAX; i++) {
		if (pid > 0 && s->slot[i].pid == pid) {
			conn_slots_free(s, i);
			return true;
		}
	}
	return false;
}

void conn_slot_enter_handler(const struct conn_slots *s, int idx)
{
	own_waiting_flag = &s->waiting[idx];
}

void conn_slot_waiting(bool waiting)
{
	if (own_waiting_flag != NULL)
		atomic_store(own_waiting_flag, waiting ? 1 : 0);
}
