/*
 * The sandbox of postern-check and of the DOAP parser (see sandbox.h).
 *
 * MUST: leave the process able to read SANDBOX_IN_FD, write its verdict to
 * SANDBOX_OUT_FD, allocate memory and exit, and nothing else: no open, no
 * socket, no exec, no signals to others, no new fds. With the verifiers
 * beside it, also: write to CHECK_TEE_FD and CHECK_NOW_TEE_FD and close
 * them, read CHECK_VOUT_FD, CHECK_VERR_FD and CHECK_NOW_OUT_FD, poll them,
 * and reap the children. Any other system call
 * kills the process (SIGSYS), which its parent reports as a refusal.
 * MUST NOT: be entered after decoding started, or fail open: every step
 * that fails is an error (except Landlock on a kernel without it).
 */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn.h"

/* Access rights of newer Landlock ABIs than the build headers may know. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif

int sandbox_rlimits_set(const struct sandbox_limits *c, rlim_t nofile, struct pst_err *e)
{
	const struct { int resource; rlim_t value; const char *name; } l[] = {
		{ RLIMIT_AS, (rlim_t)c->memory, "RLIMIT_AS" },
		{ RLIMIT_CPU, (rlim_t)c->cpu_seconds, "RLIMIT_CPU" },
		{ RLIMIT_FSIZE, 0, "RLIMIT_FSIZE" },
		{ RLIMIT_NOFILE, nofile, "RLIMIT_NOFILE" },
		{ RLIMIT_NPROC, 0, "RLIMIT_NPROC" },
		{ RLIMIT_CORE, 0, "RLIMIT_CORE" },
	};
	struct rlimit r;
	size_t i;

	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++) {
		r.rlim_cur = r.rlim_max = l[i].value;
		if (setrlimit(l[i].resource, &r) != 0)
			return pst_fail(e, errno, "cannot set %s: %s", l[i].name, strerror(errno));
	}
	return 0;
}

uint64_t sandbox_landlock_all_fs(int abi)
{
	__u64 all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;   /* ABI 1: bits 0-12 */

	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		all |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return all;
}

int sandbox_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

/* A ruleset handling every right and allowing none: no path can be used at all. */
static int landlock_deny_all(int *abi_out, struct pst_err *e)
{
	struct landlock_ruleset_attr attr;
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	int fd;

	*abi_out = 0;
	if (abi < 0)
		return (errno == ENOSYS || errno == EOPNOTSUPP) ? 0
			: pst_fail(e, errno, "Landlock probe failed: %s", strerror(errno));
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = sandbox_landlock_all_fs((int)abi);
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof(attr), 0);
	if (fd < 0)
		return pst_fail(e, errno, "cannot create a Landlock ruleset: %s", strerror(errno));
	if (syscall(SYS_landlock_restrict_self, fd, 0) != 0) {
		close(fd);
		return pst_fail(e, errno, "cannot enter the Landlock ruleset: %s", strerror(errno));
	}
	close(fd);
	*abi_out = (int)abi;
	return 0;
}

/* libseccomp's SCMP_A0() leaves datum_b to the compound literal's zero fill,
 * which clang's -Wmissing-field-initializers (in -Wextra) reports. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define ALLOW(call, ...) \
	(rc == 0 ? (rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(call), __VA_ARGS__)) : rc)

/* The allow-list; everything else kills the process. One line per call, with why. */
static int seccomp_rules(scmp_filter_ctx ctx)
{
	int rc = 0;

	ALLOW(read, 1, SCMP_A0(SCMP_CMP_EQ, SANDBOX_IN_FD));      /* the upload, and only it */
	ALLOW(write, 1, SCMP_A0(SCMP_CMP_EQ, SANDBOX_OUT_FD));      /* the verdict, and only there */
	ALLOW(brk, 0);                                             /* malloc's heap */
	ALLOW(mmap, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)); /* large allocations, never executable */
	ALLOW(mprotect, 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)); /* malloc arenas, never executable */
	ALLOW(munmap, 0);                                          /* freeing them */
	ALLOW(mremap, 0);                                          /* realloc of large blocks */
	ALLOW(madvise, 0);                                         /* malloc returning memory */
	ALLOW(clock_gettime, 0);                                   /* the time_limit deadline */
	ALLOW(rt_sigreturn, 0);                                    /* return from a fatal signal's default path */
	ALLOW(exit_group, 0);                                      /* the end */
	ALLOW(exit, 0);                                            /* the end */
	return rc;
}

/* What talking to the verifiers (sig_verifier.c) adds. */
static int seccomp_verifier_rules(scmp_filter_ctx ctx)
{
	int rc = 0;

	ALLOW(write, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_TEE_FD));       /* the signed bytes, to the verifier */
	ALLOW(close, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_TEE_FD));       /* their end */
	ALLOW(read, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_VOUT_FD));       /* its stdout */
	ALLOW(read, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_VERR_FD));       /* its stderr */
	ALLOW(write, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_NOW_TEE_FD));   /* the same bytes, to gpgv */
	ALLOW(close, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_NOW_TEE_FD));   /* their end */
	ALLOW(read, 1, SCMP_A0(SCMP_CMP_EQ, CHECK_NOW_OUT_FD));    /* its status lines */
	ALLOW(poll, 0);                                            /* waiting on their output */
	ALLOW(ppoll, 0);                                           /* poll() on libcs that use it */
	ALLOW(wait4, 0);                                           /* its exit status */
	return rc;
}

static int seccomp_enter(bool verifier, struct pst_err *e)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int rc;

	if (ctx == NULL)
		return pst_fail(e, ENOMEM, "cannot build the seccomp filter");
	rc = seccomp_rules(ctx);
	if (rc == 0 && verifier)
		rc = seccomp_verifier_rules(ctx);
	if (rc == 0)
		rc = seccomp_load(ctx);
	seccomp_release(ctx);
	if (rc < 0)
		return pst_fail(e, -rc, "cannot load the seccomp filter: %s", strerror(-rc));
	return 0;
}

int sandbox_enter(const struct sandbox_limits *c, int *landlock_abi, struct pst_err *e)
{
	int rc;

	/* Landlock needs no_new_privs and a free fd for its ruleset: both before the limits. */
	if (c->verifier) {
		close(SANDBOX_IN_FD + 1);
		fds_close_from(CHECK_NOW_OUT_FD + 1);
	} else {
		fds_close_from(SANDBOX_IN_FD + 1);
	}
	rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 ? 0
		: pst_fail(e, errno, "cannot set no_new_privs: %s", strerror(errno));
	if (rc == 0)
		rc = landlock_deny_all(landlock_abi, e);
	if (rc == 0)
		rc = sandbox_rlimits_set(c, c->verifier ? SANDBOX_NOFILE_VERIFIER : SANDBOX_NOFILE, e);
	if (rc == 0)
		rc = seccomp_enter(c->verifier, e);
	return rc;
}
