/* list, the daemon's side: released versions of a module, and the asker's own releases. */
#define _GNU_SOURCE
#include "installd.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ledger.h"
#include "tree_scan.h"
#include "wire_io.h"

#define LIST_MINE_MAX 20

static void format_time(time_t t, char *out, size_t len)
{
	struct tm tm;

	if (gmtime_r(&t, &tm) == NULL || strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm) == 0)
		str_copy(out, len, "?");
}

void installd_op_list_module(const struct installd *d, const struct installd_peer *peer,
			     const char *module)
{
	struct tree_module m;
	struct pst_err e;
	char when[32];
	size_t shown = 0;
	size_t i;
	int fd = tree_module_open(d->sources_fd, module, 0, &e);

	if (fd == -ENOENT) {
		wire_send_msg(peer->sock, WIRE_MSG_OK, "%s has no releases yet", module);
		return;
	}
	if (fd < 0 || tree_scan_module(fd, module, &m, &e) < 0) {
		if (fd >= 0)
			close(fd);
		wire_send_msg(peer->sock, WIRE_MSG_ERROR, "cannot read the releases of %s: %s", module, e.msg);
		return;
	}
	close(fd);
	for (i = 0; i < m.n; i++) {
		if (m.entries[i].kind != TREE_RELEASE)
			continue;
		format_time(m.entries[i].mtime, when, sizeof(when));
		wire_send_msg(peer->sock, WIRE_MSG_LINE, "  %-12s %s/%s  %lld bytes  %s",
			      m.entries[i].rn.version, m.entries[i].dir, m.entries[i].name,
			      (long long)m.entries[i].size, when);
		shown++;
	}
	tree_module_free(&m);
	wire_send_msg(peer->sock, WIRE_MSG_OK, "%zu release%s of %s", shown, shown == 1 ? "" : "s",
		      module);
}

struct mine {
	const char *user;
	struct ledger_record recent[LIST_MINE_MAX];
	size_t n;      /* records seen; the last LIST_MINE_MAX are kept in a ring */
};

static bool collect_mine(const struct ledger_record *r, const char *line, void *arg)
{
	struct mine *m = arg;

	(void)line;
	if (strcmp(r->user, m->user) == 0)
		m->recent[m->n++ % LIST_MINE_MAX] = *r;
	return true;
}

void installd_op_list_mine(const struct installd *d, const struct installd_peer *peer)
{
	static struct mine m;
	struct pst_err e;
	char when[32];
	size_t first;
	size_t i;

	memset(&m, 0, sizeof(m));
	m.user = peer->user;
	if (ledger_each(d->state_fd, collect_mine, &m, &e) < 0) {
		wire_send_msg(peer->sock, WIRE_MSG_ERROR, "cannot read the ledger: %s", e.msg);
		return;
	}
	first = m.n > LIST_MINE_MAX ? m.n - LIST_MINE_MAX : 0;
	for (i = first; i < m.n; i++) {
		const struct ledger_record *r = &m.recent[i % LIST_MINE_MAX];
		format_time(r->when, when, sizeof(when));
		wire_send_msg(peer->sock, WIRE_MSG_LINE, "  %s  %-7s %s%s", when,
			      r->op, r->file, strcmp(r->maintainer, "no") == 0 ? " (non-maintainer upload)" : "");
	}
	wire_send_msg(peer->sock, WIRE_MSG_OK, "%zu recent release event%s", m.n - first,
		      m.n - first == 1 ? "" : "s");
}
