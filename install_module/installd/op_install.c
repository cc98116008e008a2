/*
 * install-module, the daemon's side.
 *
 * MUST: decide only from SO_PEERCRED (peer->user) and the passed fd; check
 * the fd is a regular file owned by that user before reading it; read it
 * once (upload_stage: copy and SHA-256) into an anonymous staging file on
 * the tree's filesystem, confirm that the upload did not change while it
 * was read, and have exactly that staging copy checked by the confined
 * checker (check_spawn: postern-check, another user, read-only fd); link
 * the staging file into place with a call that cannot replace an existing
 * name; update indexes and ledger under the module lock. A signature sent
 * with the upload is staged the same way and verified by the checker
 * against the asker's own keyring; a module that requires one gets none
 * installed without it, and a bad one is refused even where optional.
 * MUST NOT: open any path the client named, overwrite a release (--force
 * first moves the old files to the attic), let a version back under another
 * spelling or, once withdrawn, with other bytes (without --force), or leave
 * a partial file in the tree: the staging file has no name until it is
 * complete and fsynced.
 */
#define _GNU_SOURCE
#include "installd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attic.h"
#include "check_spawn.h"
#include "ci_rules.h"
#include "hooks.h"
#include "install_rules.h"
#include "history.h"
#include "ledger.h"
#include "module_change.h"
#include "release_name.h"
#include "tree_index.h"
#include "tree_scan.h"
#include "upload_signature.h"
#include "upload_stage.h"
#include "wire_io.h"

struct install_job {
	const struct installd *d;
	const struct installd_peer *peer;
	const struct wire_request *req;
	int upload_fd;
	int sig_fd;                       /* the signature the client passed, or -1 */
	struct upload_signature sig;
	struct release_name rn;
	bool have_name;
	enum policy_basis basis;
	char dir[RELEASE_DIR_MAX];
	struct install_facts facts;       /* what the rules decide from (install_rules.h) */
	struct pst_err name_error;
	struct pst_err dir_error;
	char policy_reason[512];
	char tar_sign[NAME_MAX + 1];
	struct stat before;
	struct upload_staged staged;
	struct check_verdict verdict;
	struct ledger_record earlier;     /* the latest install of this version, if any */
	bool have_earlier;
	struct ledger_record rec;
	/* A ci-install: the job (req->ci) as ci_rules sees it, and its uploader name. */
	bool ci;
	struct oidc_claims ci_job;
	char ci_uploader[CI_UPLOADER_MAX];
	int http_status;                  /* a ci-install's refusal, told before it */
};

static const char *yes_no(bool b)
{
	return b ? "yes" : "no";
}

static const char *basis_name(enum policy_basis b)
{
	switch (b) {
	case POLICY_MAINTAINER: return "maintainer";
	case POLICY_RELEASE_TEAM: return "release_team";
	case POLICY_OPEN: return "open";
	case POLICY_DENY: return "deny";
	}
	return "deny";
}

static bool dry_run(const struct install_job *j)
{
	return (j->req->flags & WIRE_FLAG_DRY_RUN) != 0;
}

/* Refuse: tell the client, log it, nothing changed. */
static bool refuse(struct install_job *j, const char *reason)
{
	audit_emit(LOG_NOTICE, "install_refused", &j->peer->session,
		   "file", j->req->name,
		   "module", j->have_name ? j->rn.module : NULL,
		   "version", j->have_name ? j->rn.version : NULL,
		   "reason", reason,
		   "signature", j->req->sig != WIRE_SIG_NONE && j->sig.name[0] ? j->sig.name : NULL,
		   "uploader", j->ci ? j->ci_uploader : NULL,
		   "ci_pipeline", j->ci ? j->req->ci.pipeline : NULL,
		   "ci_job", j->ci ? j->req->ci.job : NULL,
		   "ci_sha", j->ci ? j->req->ci.sha : NULL,
		   "ci_user", j->ci ? j->req->ci.user : NULL,
		   "peer_uid", j->peer->peer_uid, "peer_pid", j->peer->peer_pid,
		   "dry_run", yes_no(dry_run(j)), NULL);
	if (j->ci)
		wire_send_msg(j->peer->sock, WIRE_MSG_STATUS, "%d", j->http_status);
	wire_send_msg(j->peer->sock, WIRE_MSG_REFUSED, "%s", reason);
	return false;
}

/* What a ci-install's refusal at this point is, in HTTP's words. */
static void refusal_status(struct install_job *j, int status)
{
	j->http_status = status;
}

/* An internal error: refused too (fail closed), but said to be ours. */
static bool fail(struct install_job *j, const struct pst_err *e)
{
	char reason[PST_ERR_MAX + 64];

	snprintf(reason, sizeof(reason), "internal error, nothing was installed: %s", e->msg);
	refusal_status(j, 500);
	return refuse(j, reason);
}

/* A refusal by the rules of stage, as HTTP says it to a CI job. */
static int stage_status(const struct install_job *j, enum install_stage stage)
{
	switch (stage) {
	case INSTALL_STAGE_REQUEST:
		return j->facts.name_error != NULL || j->facts.dir_error != NULL ? 422 : 403;
	case INSTALL_STAGE_UPLOAD:
		return 422;
	case INSTALL_STAGE_TREE:
	case INSTALL_STAGE_LEDGER:
		return 409;     /* released already, or withdrawn with other bytes */
	}
	return 500;
}

/* Ask the rule table about what is known so far; a refusal is told and logged. */
static bool allowed(struct install_job *j, enum install_stage stage)
{
	struct decision d;

	if (install_rules_check(stage, &j->facts, &d))
		return true;
	refusal_status(j, stage_status(j, stage));
	return refuse(j, d.reason);
}

static const char *job_basis_name(const struct install_job *j)
{
	return j->ci && j->basis != POLICY_DENY ? "ci" : basis_name(j->basis);
}

/*
 * A ci-install: the job may release only what modules.M.ci binds it to,
 * from a protected tag that is the version (ci_rules.h); the human rules
 * (maintainer, release team, open) never apply to it.
 */
static enum policy_basis ci_decide(struct install_job *j)
{
	const struct wire_ci_job *w = &j->req->ci;
	struct oidc_claims *c = &j->ci_job;
	struct ci_release r = { w->issuer, c, j->rn.module, j->rn.version };
	struct ci_verdict v;

	memset(c, 0, sizeof(*c));
	str_copy(c->project, sizeof(c->project), w->project);
	str_copy(c->ref, sizeof(c->ref), w->ref);
	str_copy(c->ref_type, sizeof(c->ref_type), w->ref_type);
	c->ref_protected = w->ref_protected;
	str_copy(c->pipeline, sizeof(c->pipeline), w->pipeline);
	str_copy(c->job, sizeof(c->job), w->job);
	str_copy(c->sha, sizeof(c->sha), w->sha);
	str_copy(c->user, sizeof(c->user), w->user);
	ci_release_decide(j->d->policy, &r, &v);
	str_copy(j->policy_reason, sizeof(j->policy_reason), v.why);
	return v.allowed ? POLICY_MAINTAINER : POLICY_DENY;
}

/* The request's facts: its name, what the policy says of this user and module. */
static void gather_request(struct install_job *j)
{
	const struct installd *d = j->d;
	struct install_facts *f = &j->facts;
	const struct policy_module *pm;

	f->file = j->req->name;
	f->force = (j->req->flags & WIRE_FLAG_FORCE) != 0;
	if (release_name_parse(j->req->name, &j->rn, &j->name_error) < 0) {
		f->name_error = j->name_error.msg;
		return;
	}
	j->have_name = true;
	f->module = j->rn.module;
	f->version = j->rn.version;
	if (j->ci)
		j->basis = f->basis = ci_decide(j);
	else
		j->basis = f->basis = policy_may(d->policy, j->peer->user, POLICY_INSTALL,
						 j->rn.module, j->policy_reason,
						 sizeof(j->policy_reason));
	f->policy_reason = j->policy_reason;
	f->release_team = !j->ci && policy_is_release_team(d->policy, j->peer->user);
	f->signature_required = policy_signature_required(d->policy, j->rn.module);
	pm = policy_module_find(d->policy, j->rn.module);
	if (release_version_dir(j->rn.version, pm ? pm->version_dir : NULL, j->dir,
				sizeof(j->dir), &j->dir_error) < 0)
		f->dir_error = j->dir_error.msg;
}

/* The passed fd's facts: checked before a byte of it is read. */
static void gather_upload(struct install_job *j)
{
	struct install_facts *f = &j->facts;
	int fl = -1;

	f->upload_passed = j->upload_fd >= 0;
	if (f->upload_passed) {
		fl = fcntl(j->upload_fd, F_GETFL);
		f->upload_inspected = fstat(j->upload_fd, &j->before) == 0 && fl >= 0;
	}
	if (f->upload_inspected) {
		f->upload_regular = S_ISREG(j->before.st_mode);
		f->upload_uid = j->before.st_uid;
		f->upload_readable = (fl & O_ACCMODE) != O_WRONLY && (fl & O_PATH) == 0;
		f->upload_size = (uint64_t)j->before.st_size;
	}
	f->asker_uid = j->peer->uid;
	f->max_compressed = j->d->set->limits.max_compressed;
	f->signature_sent = j->req->sig != WIRE_SIG_NONE;
	if (wire_signature_name(j->req->name, WIRE_SIG_TAR, j->tar_sign, sizeof(j->tar_sign)))
		f->tar_sign_name = j->tar_sign;
}

static bool is_signed(const struct install_job *j)
{
	return j->sig.form != WIRE_SIG_NONE;
}

/*
 * A signature that was sent: its staging copy and the asker's keyring,
 * everything the checker needs to verify it (whether one was needed is the
 * rules' signature_present). A signature sent for a module that does not
 * require one is verified all the same.
 */
static bool prepare_signature(struct install_job *j)
{
	const struct installd *d = j->d;
	struct pst_err e;
	int rc;

	if (j->req->sig == WIRE_SIG_NONE)
		return true;
	if (j->ci) {
		refusal_status(j, 422);
		return refuse(j, "a CI release comes without an OpenPGP signature: the job's token "
			      "says who built it (send the tarball alone)");
	}
	j->sig.form = j->req->sig;
	if (!wire_signature_name(j->req->name, j->req->sig, j->sig.name, sizeof(j->sig.name)))
		return refuse(j, "the signature's file name would be too long (shorten the upload's name)");
	rc = upload_signature_stage(&j->sig, j->sig_fd, j->peer->uid, d->staging_fd, &e);
	if (rc == 0)
		rc = upload_signature_keyring(&j->sig, d->set->signature_keyrings, j->peer->user, &e);
	if (rc == -EBADMSG)
		return refuse(j, e.msg);
	if (rc < 0)
		return fail(j, &e);
	return true;
}

/*
 * The checker, with the signature to verify when there is one. It gets
 * read-only fds at offset 0: new open file descriptions of the staging
 * copies, never the daemon's writable ones.
 */
static int run_checker(struct install_job *j, int staging, struct pst_err *e)
{
	const struct upload_limits *lim = &j->d->set->limits;
	struct check_signature cs = { CHECK_SIG_NONE, -1, -1, j->d->set->signature_max_age };
	int rc;

	if (!is_signed(j))
		return check_spawn_upload(j->d->check_socket, staging, &j->rn, lim, j->staged.size,
					  NULL, &j->verdict, e);
	cs.kind = upload_signature_kind(&j->sig);
	cs.keyring_fd = j->sig.keyring_fd;
	cs.sig_fd = upload_stage_reopen_readonly(j->sig.staging_fd, e);
	if (cs.sig_fd < 0)
		return cs.sig_fd;
	rc = check_spawn_upload(j->d->check_socket, staging, &j->rn, lim, j->staged.size, &cs,
				&j->verdict, e);
	close(cs.sig_fd);
	/* Fail closed: a pass of a signed upload must name who signed it. */
	if (rc == 0 && j->verdict.signer[0] == '\0')
		rc = pst_fail(e, EPROTO, "the checker passed a signed upload without naming its signer");
	return rc;
}

/* The bytes read must be the file as it was before and still is. */
static bool upload_unchanged(struct install_job *j)
{
	struct stat after;

	refusal_status(j, 422);
	if (fstat(j->upload_fd, &after) != 0)
		return refuse(j, "the passed file cannot be inspected");
	if (after.st_size != j->before.st_size ||
	    after.st_mtim.tv_sec != j->before.st_mtim.tv_sec ||
	    after.st_mtim.tv_nsec != j->before.st_mtim.tv_nsec ||
	    j->staged.size != (uint64_t)after.st_size)
		return refuse(j, "the upload changed while it was being checked (wait until it is complete, then run install-module again)");
	return true;
}

/* Copy the upload into an anonymous staging file and have that checked; returns its fd or -1. */
static int check_content(struct install_job *j)
{
	const struct upload_limits *lim = &j->d->set->limits;
	struct pst_err e;
	int staging;
	int rc;

	staging = openat(j->d->staging_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
	if (staging < 0) {
		pst_fail(&e, errno, "cannot create a staging file: %s", strerror(errno));
		fail(j, &e);
		return -1;
	}
	wire_send_msg(j->peer->sock, WIRE_MSG_PROGRESS, "checking %s", j->req->name);
	rc = upload_stage(j->upload_fd, staging, lim->max_compressed, &j->staged, &e);
	if (rc == 0 && !upload_unchanged(j))
		rc = -EAGAIN;           /* upload_unchanged() told the client */
	else if (rc == 0)
		rc = run_checker(j, staging, &e);
	if (rc == -EBADMSG || rc == -EFBIG || rc == -ETIMEDOUT) {
		refusal_status(j, rc == -EFBIG ? 413 : 422);
		refuse(j, e.msg);
	}
	else if (rc < 0 && rc != -EAGAIN)
		fail(j, &e);
	else if (rc == 0 && (fchmod(staging, INSTALLD_TREE_FILE_MODE) != 0 || fsync(staging) != 0)) {
		rc = pst_fail(&e, errno, "cannot sync the staging file: %s", strerror(errno));
		fail(j, &e);
	}
	if (rc < 0) {
		close(staging);
		return -1;
	}
	return staging;
}

/* Give the anonymous staging file its name in the version directory (never replacing one). */
static int link_into_place(int staging, int dir_fd, const char *name, struct pst_err *e)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", staging);
	if (linkat(AT_FDCWD, proc, dir_fd, name, AT_SYMLINK_FOLLOW) != 0)
		return pst_fail(e, errno, "%s: cannot link into the tree: %s", name, strerror(errno));
	if (fsync(dir_fd) != 0)
		return pst_fail(e, errno, "%s: cannot sync its directory: %s", name, strerror(errno));
	return 0;
}

static int open_version_dir(int module_fd, const char *dir, struct pst_err *e)
{
	int fd;

	if (mkdirat(module_fd, dir, INSTALLD_TREE_DIR_MODE) == 0) {
		if (fsync(module_fd) != 0)
			return pst_fail(e, errno, "%s: cannot sync: %s", dir, strerror(errno));
	} else if (errno != EEXIST) {
		return pst_fail(e, errno, "%s: cannot create: %s", dir, strerror(errno));
	}
	fd = openat(module_fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return pst_fail(e, errno, "%s: cannot open: %s", dir, strerror(errno));
	return fd;
}

/* --force: the old files of this version (any format, its checksum, signature and proof) go to event_fd. */
static int retire_old(const struct install_job *j, int module_fd, const struct tree_module *m,
		      int event_fd, struct pst_err *e)
{
	int dir_fd;
	size_t i;
	int rc = 0;

	for (i = 0; rc == 0 && i < m->n; i++) {
		const struct tree_entry *t = &m->entries[i];
		if ((t->kind != TREE_RELEASE && t->kind != TREE_SHA256SUM &&
		     t->kind != TREE_SIGNATURE && t->kind != TREE_PROOF) ||
		    !release_version_same(t->rn.version, j->rn.version))
			continue;
		dir_fd = openat(module_fd, t->dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		rc = dir_fd < 0 ? pst_fail(e, errno, "%s: cannot open", t->dir)
				: attic_move(dir_fd, t->name, event_fd, e);
		if (dir_fd >= 0)
			close(dir_fd);
	}
	return rc;
}

static void fill_record(struct install_job *j)
{
	struct ledger_record *r = &j->rec;

	memset(r, 0, sizeof(*r));
	r->when = time(NULL);
	str_copy(r->op, sizeof(r->op), "install");
	str_copy(r->user, sizeof(r->user), j->peer->user);
	str_copy(r->module, sizeof(r->module), j->rn.module);
	str_copy(r->version, sizeof(r->version), j->rn.version);
	str_copy(r->file, sizeof(r->file), j->req->name);
	str_copy(r->sha256, sizeof(r->sha256), j->staged.sha256);
	str_copy(r->maintainer, sizeof(r->maintainer), yes_no(j->basis != POLICY_OPEN));
	str_copy(r->basis, sizeof(r->basis), job_basis_name(j));
	str_copy(r->dir, sizeof(r->dir), j->dir);
	str_copy(r->forced, sizeof(r->forced), yes_no(j->req->flags & WIRE_FLAG_FORCE));
	str_copy(r->attic, sizeof(r->attic), "-");
	str_copy(r->signature, sizeof(r->signature), is_signed(j) ? j->sig.name : "-");
	str_copy(r->signer, sizeof(r->signer), is_signed(j) ? j->verdict.signer : "-");
	if (j->ci) {
		str_copy(r->ci, sizeof(r->ci), j->ci_uploader);
		str_copy(r->ci_pipeline, sizeof(r->ci_pipeline), j->req->ci.pipeline);
		str_copy(r->ci_job, sizeof(r->ci_job), j->req->ci.job);
		str_copy(r->ci_sha, sizeof(r->ci_sha), j->req->ci.sha);
		str_copy(r->ci_user, sizeof(r->ci_user), j->req->ci.user);
	}
}

/* What an install moves, once its intent is on disk (module_change_commit). */
struct install_moves {
	const struct install_job *j;
	int staging;
	const struct tree_module *m;
};

/*
 * --force: the old files to the attic first; then the new files get their
 * names: the signature before the tarball, so that the tarball, the file
 * everything else (reindex, crash recovery, mirrors) goes by, appears last,
 * already with its signature beside it. Should the tarball's link fail, the
 * signature is withdrawn to the attic; should the daemon die between the
 * two, recovery (module_lock.c) withdraws it from the intent's record.
 */
static int install_moves(void *arg, int module_fd, int event_fd, struct pst_err *e)
{
	const struct install_moves *mv = arg;
	const struct install_job *j = mv->j;
	struct tree_sum sums[2] = { { j->req->name, j->staged.sha256 },
				    { j->sig.name, j->sig.sha256 } };
	int dir_fd;
	int rc = 0;

	if (event_fd >= 0)
		rc = retire_old(j, module_fd, mv->m, event_fd, e);
	if (rc < 0)
		return rc;
	dir_fd = open_version_dir(module_fd, j->dir, e);
	if (dir_fd < 0)
		return dir_fd;
	if (is_signed(j))
		rc = upload_signature_publish(&j->sig, dir_fd, e);
	if (rc == 0) {
		rc = link_into_place(mv->staging, dir_fd, j->req->name, e);
		if (rc < 0 && is_signed(j))
			upload_signature_withdraw(&j->sig, dir_fd, j->d->attic_fd, j->rn.module,
						  j->req->name);
	}
	if (rc == 0)
		rc = tree_write_sha256sum(dir_fd, j->rn.module, j->rn.version, sums,
					  is_signed(j) ? 2 : 1, e);
	close(dir_fd);
	return rc;
}

/* The commit: from here on the tree changes. Called with the module lock held. */
static int commit(struct install_job *j, struct module_change *mc, int staging,
		  const struct tree_module *m, struct pst_err *e)
{
	struct install_moves mv = { j, staging, m };

	fill_record(j);
	return module_change_commit(mc, &j->rec, tree_find_version(m, j->rn.version) != NULL,
				    install_moves, &mv, e);
}

/* What the tree holds of this version, under the module lock. */
static bool tree_allows(struct install_job *j, const struct tree_module *m)
{
	const struct tree_entry *old = tree_find_version(m, j->rn.version);
	bool ok;

	if (old != NULL) {
		j->facts.released_version = old->rn.version;
		j->facts.released_dir = old->dir;
		j->facts.released_name = old->name;
	}
	ok = allowed(j, INSTALL_STAGE_TREE);
	/* m is freed by the caller: no fact may point into it afterwards. */
	j->facts.released_version = j->facts.released_dir = j->facts.released_name = NULL;
	return ok;
}

static bool find_earlier_install(const struct ledger_record *r, const char *line, void *arg)
{
	struct install_job *j = arg;

	(void)line;
	if (strcmp(r->op, "install") == 0 && strcmp(r->module, j->rn.module) == 0 &&
	    release_version_same(r->version, j->rn.version)) {
		j->earlier = *r;
		j->have_earlier = true;
	}
	return true;
}

/*
 * What the ledger remembers of this version, once the upload's SHA-256 is
 * known (a withdrawn version comes back only with its bytes). With --force
 * the rule allows anything, so the ledger is not read.
 */
static bool ledger_allows(struct install_job *j)
{
	struct pst_err e;

	if (!j->facts.force && history_each_module(j->d, j->rn.module, find_earlier_install, j, &e) < 0)
		return fail(j, &e);
	if (j->have_earlier) {
		j->facts.earlier_file = j->earlier.file;
		j->facts.earlier_sha256 = j->earlier.sha256;
	}
	j->facts.sha256 = j->staged.sha256;
	return allowed(j, INSTALL_STAGE_LEDGER);
}

static void report_ok(const struct install_job *j)
{
	char signed_by[NAME_MAX + 128] = "";

	audit_emit(LOG_INFO, "install_ok", &j->peer->session,
		   "module", j->rn.module, "version", j->rn.version, "file", j->req->name,
		   "sha256", j->staged.sha256, "maintainer", yes_no(j->basis != POLICY_OPEN),
		   "basis", job_basis_name(j), "dir", j->rec.dir[0] ? j->rec.dir : j->dir,
		   "forced", yes_no(j->req->flags & WIRE_FLAG_FORCE),
		   "signed", yes_no(is_signed(j)),
		   "signer", is_signed(j) ? j->verdict.signer : NULL,
		   "signature", is_signed(j) ? j->sig.name : NULL,
		   "uploader", j->ci ? j->ci_uploader : NULL,
		   "ci_pipeline", j->ci ? j->req->ci.pipeline : NULL,
		   "ci_job", j->ci ? j->req->ci.job : NULL,
		   "ci_sha", j->ci ? j->req->ci.sha : NULL,
		   "ci_user", j->ci ? j->req->ci.user : NULL,
		   "peer_uid", j->peer->peer_uid, "peer_pid", j->peer->peer_pid,
		   "dry_run", yes_no(dry_run(j)), NULL);
	if (is_signed(j))
		snprintf(signed_by, sizeof(signed_by), ", signed by OpenPGP key %s (%s)",
			 j->verdict.signer, j->sig.name);
	if (dry_run(j))
		wire_send_msg(j->peer->sock, WIRE_MSG_OK,
			      "dry run: every check passed; it would be installed as sources/%s/%s/%s (sha256 %s)%s; nothing was changed",
			      j->rn.module, j->dir, j->req->name, j->staged.sha256, signed_by);
	else
		wire_send_msg(j->peer->sock, WIRE_MSG_OK, "installed as sources/%s/%s/%s (sha256 %s)%s%s",
			      j->rn.module, j->dir, j->req->name, j->staged.sha256, signed_by,
			      j->basis == POLICY_OPEN ? ", flagged as a non-maintainer upload" : "");
}

/* Everything after the decision, with the module lock held. mc->module_fd is
 * -1 while the module has no directory; the commit makes it. */
static bool install_locked(struct install_job *j, struct module_change *mc)
{
	struct tree_module m;
	struct pst_err e;
	int staging;
	int rc;

	memset(&m, 0, sizeof(m));
	if (mc->module_fd >= 0 && tree_scan_module(mc->module_fd, j->rn.module, &m, &e) < 0)
		return fail(j, &e);
	if (!tree_allows(j, &m)) {
		tree_module_free(&m);
		return false;
	}
	staging = check_content(j);
	if (staging < 0) {
		tree_module_free(&m);
		return false;
	}
	if (!ledger_allows(j)) {
		close(staging);
		tree_module_free(&m);
		return false;
	}
	rc = 0;
	if (!dry_run(j) && mc->module_fd < 0)
		rc = mc->module_fd = tree_module_open(j->d->sources_fd, j->rn.module, 1, &e);
	if (rc >= 0 && !dry_run(j))
		rc = commit(j, mc, staging, &m, &e);
	close(staging);
	tree_module_free(&m);
	if (rc < 0)
		return fail(j, &e);
	report_ok(j);
	return !dry_run(j);
}

bool installd_op_install(const struct installd *d, const struct installd_peer *peer,
			 const struct wire_request *req, int upload_fd, int sig_fd)
{
	struct install_job j = { .d = d, .peer = peer, .req = req, .upload_fd = upload_fd,
				 .sig_fd = sig_fd };
	struct module_change mc;
	struct hook_facts facts;
	struct pst_err e;
	bool changed;

	upload_signature_init(&j.sig);
	j.ci = req->op == WIRE_OP_CI_INSTALL;
	if (j.ci)
		snprintf(j.ci_uploader, sizeof(j.ci_uploader), "ci:%s/%s", req->ci.issuer,
			 req->ci.project);
	gather_request(&j);
	if (!allowed(&j, INSTALL_STAGE_REQUEST))
		return false;
	gather_upload(&j);
	if (!allowed(&j, INSTALL_STAGE_UPLOAD) || !prepare_signature(&j)) {
		upload_signature_close(&j.sig);
		return false;
	}
	if (module_change_begin(&mc, d, j.rn.module, peer->sock, &e) < 0) {
		upload_signature_close(&j.sig);
		return fail(&j, &e);
	}
	changed = install_locked(&j, &mc);
	module_change_end(&mc);
	upload_signature_close(&j.sig);
	if (changed) {
		/* The client has its answer; hooks may take long and need not hold it. */
		shutdown(peer->sock, SHUT_RDWR);
		hook_facts_from_install(&facts, &j.rec, j.verdict.has_news ? j.verdict.news : "");
		hooks_after_install(d, &facts);
	}
	return changed;
}
