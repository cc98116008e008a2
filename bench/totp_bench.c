/*
 * totp_bench: the preparing half of bench/totp (totp_login_bench measures).
 *
 *   totp_bench setup DIR N   N users enrolled three times with the same
 *                            secrets: DIR/totp (postern's store, one record
 *                            per user), DIR/users.oath (pam_oath's HOTP/T30
 *                            users file) and DIR/ga/<user> (one
 *                            google-authenticator secret file per user,
 *                            TOTP, DISALLOW_REUSE, a window of +-10 steps)
 *   totp_bench sk-setup STORE N
 *                            each of the N users of the postern store STORE
 *                            (a copy of DIR/totp) also gets a security key:
 *                            STORE/.sk/<user> with one sk-ssh-ed25519 key,
 *                            written by the library's sk_store_create, as
 *                            postern-totp enroll-key leaves it
 *   totp_bench codes N       "user code key" lines for the timed logins: 10
 *                            users spread over the N (the last one included,
 *                            pam_oath's worst case), each with the codes of
 *                            19 successive time steps (now-8 ... now+10),
 *                            so every login is a fresh, valid code for all
 *                            three modules (window=10 or WINDOW_SIZE 21),
 *                            and the base64 blob of the user's security key
 *                            (what sshd puts in SSH_AUTH_INFO_0)
 *
 * Each store looks as its own enrolment tool leaves it: a postern record
 * holds 10 recovery codes, hashed with yescrypt (postern-totp enroll), a
 * google-authenticator file 5 emergency scratch codes (its default).
 * Secrets are derived from the user number so all halves agree without a
 * file between them, and every user shares the same 10 recovery hashes
 * (yescrypt costs milliseconds a hash): a benchmark, not an enrolment.
 * This program links liboath; the measuring one must not, or the modules
 * that need it would find it already loaded, as they do not in sshd.
 */
#include <errno.h>
#include <liboath/oath.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sk_store.h"
#include "ssh_key.h"
#include "totp_store.h"
#include "totp_verify.h"

#define SAMPLE_USERS 10
#define STEPS_BEFORE 8
#define STEPS_AFTER 10
#define SK_TYPE "sk-ssh-ed25519@openssh.com"
/* OpenSSH's default application for a key made by ssh-keygen -t ed25519-sk. */
#define SK_APPLICATION "ssh:"
/* string type, string public key (32), string application: 74 bytes. */
#define SK_BLOB_LEN (4 + sizeof(SK_TYPE) - 1 + 4 + 32 + 4 + sizeof(SK_APPLICATION) - 1)
#define SK_B64_MAX (4 * ((SK_BLOB_LEN + 2) / 3) + 1)

static void user_name(char *buf, size_t len, unsigned i)
{
	snprintf(buf, len, "ptbench%05u", i);
}

static void user_secret(unsigned i, unsigned char out[20])
{
	char seed[32];
	unsigned int n = 0;

	snprintf(seed, sizeof(seed), "postern-bench-%u", i);
	EVP_Digest(seed, strlen(seed), out, &n, EVP_sha1(), NULL);
}

static unsigned char *put_string(unsigned char *p, const void *s, uint32_t len)
{
	p[0] = (unsigned char)(len >> 24);
	p[1] = (unsigned char)(len >> 16);
	p[2] = (unsigned char)(len >> 8);
	p[3] = (unsigned char)len;
	memcpy(p + 4, s, len);
	return p + 4 + len;
}

/*
 * User i's security key as sshd shows it: the base64 of an OpenSSH
 * sk-ssh-ed25519@openssh.com public key blob, the public half of the
 * Ed25519 key whose seed is SHA-256 of the user number.
 */
static int user_sk_key(unsigned i, char b64[SK_B64_MAX])
{
	unsigned char seed[32];
	unsigned char pub[32];
	unsigned char blob[SK_BLOB_LEN];
	unsigned char *p = blob;
	char name[32];
	unsigned int n = 0;
	size_t publen = sizeof(pub);
	EVP_PKEY *k;
	int ok;

	snprintf(name, sizeof(name), "postern-bench-sk-%u", i);
	if (EVP_Digest(name, strlen(name), seed, &n, EVP_sha256(), NULL) != 1)
		return -1;
	k = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, NULL, seed, sizeof(seed));
	ok = k != NULL && EVP_PKEY_get_raw_public_key(k, pub, &publen) == 1 && publen == 32;
	EVP_PKEY_free(k);
	if (!ok)
		return -1;
	p = put_string(p, SK_TYPE, sizeof(SK_TYPE) - 1);
	p = put_string(p, pub, sizeof(pub));
	p = put_string(p, SK_APPLICATION, sizeof(SK_APPLICATION) - 1);
	if ((size_t)(p - blob) != sizeof(blob))
		return -1;
	return EVP_EncodeBlock((unsigned char *)b64, blob, (int)sizeof(blob)) > 0 ? 0 : -1;
}

/* google-authenticator wants the file owned by the user= account (root), 0400. */
static int write_ga_file(const char *dir, const char *user, const unsigned char secret[20])
{
	char path[4096];
	char *b32 = NULL;
	size_t b32len = 0;
	unsigned i;
	FILE *f;

	if (oath_base32_encode((const char *)secret, 20, &b32, &b32len) != OATH_OK)
		return -1;
	snprintf(path, sizeof(path), "%s/ga/%s", dir, user);
	f = fopen(path, "wex");
	if (f == NULL) {
		free(b32);
		return -1;
	}
	fprintf(f, "%s\n\" TOTP_AUTH\n\" WINDOW_SIZE 21\n\" DISALLOW_REUSE\n", b32);
	/* Five 8-digit emergency scratch codes, as google-authenticator writes by default. */
	for (i = 0; i < 5; i++)
		fprintf(f, "%u\n", 10000000u + ((unsigned)secret[2 * i] << 8 | secret[2 * i + 1]) * 1000u + i);
	free(b32);
	if (fchmod(fileno(f), 0400) != 0) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* The recovery part of an enrolment: TOTP_RECOVERY_MAX codes, hashed as enroll does. */
static int recovery_hashes(struct totp_record *shared)
{
	char code[32];
	size_t i;

	for (i = 0; i < TOTP_RECOVERY_MAX; i++) {
		snprintf(code, sizeof(code), "bench-recovery-%zu", i);
		if (recovery_hash(code, shared->recovery[i], sizeof(shared->recovery[i])) < 0)
			return -1;
	}
	shared->nrecovery = TOTP_RECOVERY_MAX;
	return 0;
}

static int setup(const char *dir, unsigned n)
{
	char path[4096];
	char user[32];
	struct totp_record r;
	struct totp_record recovery;
	struct pst_err e;
	FILE *oath;
	int storefd;
	unsigned i;
	unsigned j;

	if (recovery_hashes(&recovery) < 0) {
		fprintf(stderr, "totp_bench: libcrypt cannot make a yescrypt hash\n");
		return 1;
	}

	snprintf(path, sizeof(path), "%s/totp", dir);
	storefd = totp_store_open_create(path, &e);
	if (storefd < 0) {
		fprintf(stderr, "totp_bench: %s\n", e.msg);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/ga", dir);
	if (mkdir(path, 0700) != 0)
		return 1;
	snprintf(path, sizeof(path), "%s/users.oath", dir);
	oath = fopen(path, "we");
	if (oath == NULL)
		return 1;
	for (i = 0; i < n; i++) {
		totp_record_wipe(&r);
		r.alg = TOTP_SHA1;
		r.secret_len = 20;
		r.created = time(NULL);
		user_secret(i, r.secret);
		memcpy(r.recovery, recovery.recovery, sizeof(r.recovery));
		r.nrecovery = recovery.nrecovery;
		user_name(user, sizeof(user), i);
		if (totp_store_write(storefd, user, &r, &e) < 0) {
			fprintf(stderr, "totp_bench: %s\n", e.msg);
			return 1;
		}
		if (write_ga_file(dir, user, r.secret) < 0) {
			fprintf(stderr, "totp_bench: %s/ga/%s: %s\n", dir, user, strerror(errno));
			return 1;
		}
		fprintf(oath, "HOTP/T30 %s - ", user);
		for (j = 0; j < 20; j++)
			fprintf(oath, "%02x", r.secret[j]);
		fputc('\n', oath);
	}
	close(storefd);
	return fclose(oath) == 0 ? 0 : 1;
}

/* One security key per user, as postern-totp enroll-key records it. */
static int sk_setup(const char *store, unsigned n)
{
	char b64[SK_B64_MAX];
	char user[32];
	struct sk_record r;
	struct pst_err e;
	int storefd;
	int skfd;
	unsigned i;

	storefd = totp_store_open(store, &e);
	if (storefd < 0) {
		fprintf(stderr, "totp_bench: %s\n", e.msg);
		return 1;
	}
	skfd = sk_store_open(storefd, true, &e);
	close(storefd);
	if (skfd < 0) {
		fprintf(stderr, "totp_bench: %s/%s: %s\n", store, SK_DIR, e.msg);
		return 1;
	}
	for (i = 0; i < n; i++) {
		memset(&r, 0, sizeof(r));
		if (user_sk_key(i, b64) < 0) {
			fprintf(stderr, "totp_bench: libcrypto cannot make an Ed25519 key\n");
			close(skfd);
			return 1;
		}
		user_name(user, sizeof(user), i);
		snprintf(r.keys[0].type, sizeof(r.keys[0].type), "%s", SK_TYPE);
		snprintf(r.keys[0].comment, sizeof(r.keys[0].comment), "%s@bench", user);
		r.keys[0].created = time(NULL);
		r.nkeys = 1;
		if (ssh_key_fingerprint(SK_TYPE, b64, r.keys[0].fpr, &e) < 0 ||
		    sk_store_create(skfd, user, &r, &e) < 0) {
			fprintf(stderr, "totp_bench: %s: %s\n", user, e.msg);
			close(skfd);
			return 1;
		}
	}
	close(skfd);
	return 0;
}

/* Step by step, user by user: each user's codes come in rising time steps. */
static int codes(unsigned n)
{
	unsigned char secret[20];
	char user[32];
	char code[16];
	char sk[SK_B64_MAX];
	time_t start = time(NULL);
	int step;
	unsigned u;
	unsigned i;

	if (oath_init() != OATH_OK)
		return 1;
	for (step = -STEPS_BEFORE; step <= STEPS_AFTER; step++) {
		for (i = 0; i < SAMPLE_USERS; i++) {
			u = n <= SAMPLE_USERS ? i : (i + 1) * (n / SAMPLE_USERS) - 1;
			user_name(user, sizeof(user), u);
			user_secret(u, secret);
			if (oath_totp_generate((const char *)secret, sizeof(secret),
					       start + step * 30, 30, 0, 6, code) != OATH_OK ||
			    user_sk_key(u, sk) < 0)
				return 1;
			printf("%s %s %s\n", user, code, sk);
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "setup") == 0)
		return setup(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 4 && strcmp(argv[1], "sk-setup") == 0)
		return sk_setup(argv[2], (unsigned)atoi(argv[3]));
	if (argc == 3 && strcmp(argv[1], "codes") == 0)
		return codes((unsigned)atoi(argv[2]));
	fprintf(stderr, "usage: totp_bench setup DIR N | sk-setup STORE N | codes N\n");
	return 2;
}
