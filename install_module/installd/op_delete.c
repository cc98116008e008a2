/*
 * delete-own for a released file, the daemon's side.
 *
 * MUST: allow it only for the user the ledger names as the file's
 * installer, within delete_window (the release team: any time), and move
 * the file, its checksum and its signature into the attic. MUST NOT:
 * unlink anything in the tree. The checksum goes first, so a crash in
 * between leaves the release in place (the reindex restores its checksum);
 * the signature last, after the release it signs: a crash before it moved
 * leaves the delete done, and recovery (module_lock.c) finishes it from the
 * intent's record.
 */
#define _GNU_SOURCE
#include "installd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attic.h"
#include "delete_rules.h"
#include "history.h"
#include "ledger.h"
#include "module_change.h"
#include "release_name.h"
#include "tree_scan.h"
#include "wire_io.h"

struct delete_job {
	const struct installd *d;
	const struct installd_peer *peer;
	const char *file;
	struct release_name rn;
	bool have_name;
	struct ledger_record installed;   /* the latest install record of file */
	bool found;
	struct ledger_record rec;
	const struct tree_entry *release;  /* the file in the tree, while it is scanned */
	const struct tree_module *scanned; /* the module, while it is scanned */
	struct delete_facts facts;         /* what the rules decide from (delete_rules.h) */
	struct pst_err name_error;
	char policy_reason[512];
};

/* rule: the delete rule that refused (delete_rules.h), or NULL for an error. */
static bool refuse(const struct delete_job *j, const char *rule, const char *reason)
{
	audit_emit(LOG_NOTICE, "delete_refused", &j->peer->session,
		   "file", j->file, "rule", rule != NULL ? rule : "-",
		   "module", j->have_name ? j->rn.module : NULL,
		   "version", j->have_name ? j->rn.version : NULL,
		   "reason", reason, "kind", "release",
		   "peer_uid", j->peer->peer_uid, "peer_pid", j->peer->peer_pid, NULL);
	wire_send_msg(j->peer->sock, WIRE_MSG_REFUSED, "%s", reason);
	return false;
}

static bool fail(const struct delete_job *j, const struct pst_err *e)
{
	char reason[PST_ERR_MAX + 64];

	snprintf(reason, sizeof(reason), "internal error, nothing was deleted: %s", e->msg);
	return refuse(j, NULL, reason);
}

static bool find_install(const struct ledger_record *r, const char *line, void *arg)
{
	struct delete_job *j = arg;

	(void)line;
	if (strcmp(r->op, "install") == 0 && strcmp(r->file, j->file) == 0 &&
	    strcmp(r->module, j->rn.module) == 0) {
		j->installed = *r;
		j->found = true;
	}
	return true;
}

/* Ask the rule table about what is known so far; a refusal is told and logged. */
static bool allowed(const struct delete_job *j, enum delete_stage stage)
{
	struct decision d;

	if (delete_rules_check(stage, &j->facts, &d))
		return true;
	return refuse(j, d.rule, d.reason);
}

static void gather_request(struct delete_job *j)
{
	struct delete_facts *f = &j->facts;

	f->file = j->file;
	f->asker = j->peer->user;
	/* A release from before leading zeros were refused can be deleted too. */
	if (release_name_parse_released(j->file, &j->rn, &j->name_error) < 0) {
		f->name_error = j->name_error.msg;
		return;
	}
	j->have_name = true;
	f->module = j->rn.module;
	f->basis = policy_may(j->d->policy, j->peer->user, POLICY_DELETE, j->rn.module,
			      j->policy_reason, sizeof(j->policy_reason));
	f->policy_reason = j->policy_reason;
	f->release_team = policy_is_release_team(j->d->policy, j->peer->user);
	f->delete_window = j->d->set->delete_window;
}

/* The ledger must say this user installed it, recently enough. */
static bool ledger_allows(struct delete_job *j)
{
	struct pst_err e;

	if (history_each_module(j->d, j->rn.module, find_install, j, &e) < 0)
		return fail(j, &e);
	if (j->found) {
		j->facts.installer = j->installed.user;
		j->facts.installed_when = j->installed.when;
	}
	j->facts.now = time(NULL);
	if (history_clock(j->d, j->facts.now, &j->facts.clock_seen, &e) < 0)
		return fail(j, &e);
	return allowed(j, DELETE_STAGE_LEDGER);
}

static void fill_record(struct delete_job *j)
{
	j->rec = j->installed;
	j->rec.when = time(NULL);
	str_copy(j->rec.op, sizeof(j->rec.op), "delete");
	str_copy(j->rec.user, sizeof(j->rec.user), j->peer->user);
	str_copy(j->rec.forced, sizeof(j->rec.forced), "no");
}

/* Every signature of rel's version in rel's directory goes with it. */
static int move_signatures(const struct delete_job *j, int dir_fd, int event_fd,
			   struct pst_err *e)
{
	const struct tree_module *m = j->scanned;
	const struct tree_entry *rel = j->release;
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < m->n; i++) {
		if (m->entries[i].kind == TREE_SIGNATURE && strcmp(m->entries[i].dir, rel->dir) == 0 &&
		    strcmp(m->entries[i].rn.version, rel->rn.version) == 0)
			rc = attic_move(dir_fd, m->entries[i].name, event_fd, e);
	}
	return rc;
}

/*
 * The moves of a delete (module_change_commit): the file's inclusion proof,
 * the checksum, the file, its signature. The proof first: a crash right
 * after leaves a release without one, still proved by the log itself,
 * never a proof beside nothing.
 */
static int delete_moves(void *arg, int module_fd, int event_fd, struct pst_err *e)
{
	const struct delete_job *j = arg;
	const struct tree_entry *rel = j->release;
	char sum[NAME_MAX + 1], proof[NAME_MAX + sizeof(TREE_PROOF_SUFFIX)];
	int dir_fd;
	int rc = 0;

	dir_fd = openat(module_fd, rel->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dir_fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", rel->dir, strerror(errno));
	snprintf(proof, sizeof(proof), "%s" TREE_PROOF_SUFFIX, rel->name);
	if (faccessat(dir_fd, proof, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		rc = attic_move(dir_fd, proof, event_fd, e);
	snprintf(sum, sizeof(sum), "%s-%s.sha256sum", j->rn.module, j->rn.version);
	if (rc == 0 && faccessat(dir_fd, sum, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		rc = attic_move(dir_fd, sum, event_fd, e);
	if (rc == 0)
		rc = attic_move(dir_fd, rel->name, event_fd, e);
	if (rc == 0)
		rc = move_signatures(j, dir_fd, event_fd, e);
	close(dir_fd);
	return rc;
}

static bool delete_locked(struct delete_job *j, struct module_change *mc)
{
	const struct tree_entry *rel;
	struct tree_module m;
	struct pst_err e;
	bool ok = false;

	if (tree_scan_module(mc->module_fd, j->rn.module, &m, &e) < 0)
		return fail(j, &e);
	rel = tree_find_file(&m, j->file);
	j->facts.file_in_tree = rel != NULL;
	if (allowed(j, DELETE_STAGE_TREE) && ledger_allows(j)) {
		fill_record(j);
		j->release = rel;
		j->scanned = &m;
		ok = module_change_commit(mc, &j->rec, true, delete_moves, j, &e) == 0;
		j->release = NULL;
		j->scanned = NULL;
		if (!ok)
			fail(j, &e);
	}
	tree_module_free(&m);
	return ok;
}

bool installd_op_delete(const struct installd *d, const struct installd_peer *peer,
			const struct wire_request *req)
{
	struct delete_job j = { .d = d, .peer = peer, .file = req->name };
	struct module_change mc;
	struct pst_err e;
	bool ok;

	gather_request(&j);
	if (!allowed(&j, DELETE_STAGE_REQUEST))
		return false;
	if (module_change_begin(&mc, d, j.rn.module, peer->sock, &e) < 0)
		return fail(&j, &e);
	j.facts.module_has_dir = mc.module_fd >= 0;
	if (!allowed(&j, DELETE_STAGE_MODULE)) {
		module_change_end(&mc);
		return false;
	}
	ok = delete_locked(&j, &mc);
	module_change_end(&mc);
	if (!ok)
		return false;
	audit_emit(LOG_INFO, "delete", &peer->session, "file", j.file, "module", j.rn.module,
		   "version", j.rn.version, "kind", "release", "attic", j.rec.attic,
		   "signature", ledger_signed(&j.rec) ? j.rec.signature : NULL,
		   "peer_uid", peer->peer_uid, "peer_pid", peer->peer_pid, NULL);
	wire_send_msg(peer->sock, WIRE_MSG_OK, "%s%s%s moved to the attic (%s); indexes updated",
		      j.file, ledger_signed(&j.rec) ? " and its signature " : "",
		      ledger_signed(&j.rec) ? j.rec.signature : "", j.rec.attic);
	return true;
}
