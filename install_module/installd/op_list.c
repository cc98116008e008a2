/* list, the daemon's side: released versions of a module, and the asker's own releases. */
#define _GNU_SOURCE
#include "installd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
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

/* The signers the ledger names for the releases of a scanned module. */
struct signers {
	const struct tree_module *m;
	char (*fpr)[LEDGER_SIGNER_LEN];   /* per entry; "" unsigned */
};

static bool collect_signers(const struct ledger_record *r, const char *line, void *arg)
{
	struct signers *s = arg;
	size_t i;

	(void)line;
	if (strcmp(r->op, "install") != 0)
		return true;
	for (i = 0; i < s->m->n; i++) {
		const struct tree_entry *t = &s->m->entries[i];
		if (t->kind == TREE_RELEASE && strcmp(t->name, r->file) == 0 &&
		    strcmp(t->rn.module, r->module) == 0)
			str_copy(s->fpr[i], sizeof(s->fpr[i]), ledger_signed(r) ? r->signer : "");
	}
	return true;
}

/* Whether the release t has a signature beside it in the tree. */
static bool has_signature(const struct tree_module *m, const struct tree_entry *t)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (m->entries[i].kind == TREE_SIGNATURE && strcmp(m->entries[i].dir, t->dir) == 0 &&
		    strcmp(m->entries[i].rn.version, t->rn.version) == 0)
			return true;
	}
	return false;
}

static void send_release_line(const struct installd_peer *peer, const struct tree_module *m,
			      const struct tree_entry *t, const char *signer)
{
	char when[32];
	char sig[128] = "";

	format_time(t->mtime, when, sizeof(when));
	if (signer[0] != '\0')
		snprintf(sig, sizeof(sig), "  signed by %s", signer);
	else if (has_signature(m, t))
		str_copy(sig, sizeof(sig), "  signature beside it");
	wire_send_msg(peer->sock, WIRE_MSG_LINE, "  %-12s %s/%s  %lld bytes  %s%s", t->rn.version,
		      t->dir, t->name, (long long)t->size, when, sig);
}

void installd_op_list_module(const struct installd *d, const struct installd_peer *peer,
			     const char *module)
{
	struct signers signers = { 0 };
	struct tree_module m;
	struct pst_err e;
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
	signers.m = &m;
	signers.fpr = calloc(m.n + 1, sizeof(*signers.fpr));
	if (signers.fpr == NULL || history_each_module(d, module, collect_signers, &signers, &e) < 0) {
		wire_send_msg(peer->sock, WIRE_MSG_ERROR, "cannot read the ledger: %s",
			      signers.fpr == NULL ? "out of memory" : e.msg);
		free(signers.fpr);
		tree_module_free(&m);
		return;
	}
	for (i = 0; i < m.n; i++) {
		if (m.entries[i].kind != TREE_RELEASE)
			continue;
		send_release_line(peer, &m, &m.entries[i], signers.fpr[i]);
		shown++;
	}
	free(signers.fpr);
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
	if (history_each_user(d, peer->user, collect_mine, &m, &e) < 0) {
		wire_send_msg(peer->sock, WIRE_MSG_ERROR, "cannot read the ledger: %s", e.msg);
		return;
	}
	first = m.n > LIST_MINE_MAX ? m.n - LIST_MINE_MAX : 0;
	for (i = first; i < m.n; i++) {
		const struct ledger_record *r = &m.recent[i % LIST_MINE_MAX];
		format_time(r->when, when, sizeof(when));
		wire_send_msg(peer->sock, WIRE_MSG_LINE, "  %s  %-7s %s%s%s%s", when,
			      r->op, r->file, strcmp(r->maintainer, "no") == 0 ? " (non-maintainer upload)" : "",
			      ledger_signed(r) ? " signed by " : "", ledger_signed(r) ? r->signer : "");
	}
	wire_send_msg(peer->sock, WIRE_MSG_OK, "%zu recent release event%s", m.n - first,
		      m.n - first == 1 ? "" : "s");
}
