/* Maintainers out of one hostile DOAP file, through libxml2 with the network,
 * entities and DTDs off; it never follows a reference the file makes. */
#include "doap.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>

#define NS_DOAP "http://usefulinc.com/ns/doap#"
#define NS_FOAF "http://xmlns.com/foaf/0.1/"
#define NS_GNOME "http://api.gnome.org/doap-extensions#"
#define NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define GITLAB_GNOME "gitlab.gnome.org"

/* Why a document was refused before libxml2 could act on it. */
struct guard {
	const char *refused;
	unsigned long line, col;
};

static void guard_stop(xmlParserCtxtPtr ctxt, const char *why)
{
	struct guard *g = ctxt->_private;

	if (g->refused == NULL) {
		g->refused = why;
		g->line = (unsigned long)xmlSAX2GetLineNumber(ctxt);
		g->col = (unsigned long)xmlSAX2GetColumnNumber(ctxt);
	}
	xmlStopParser(ctxt);
}

/*
 * DOAP files have no DOCTYPE; one could declare entities (XXE, "billion
 * laughs"), name an external DTD or default attributes into elements. It is
 * refused as soon as the parser sees it, before any declaration inside.
 */
static void refuse_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
			   const xmlChar *system_id)
{
	(void)name;
	guard_stop(ctx, external_id != NULL || system_id != NULL
		   ? "a DOCTYPE naming an external DTD is not allowed in a DOAP file"
		   : "a DOCTYPE is not allowed in a DOAP file (it could declare entities)");
}

/* Second line of defence, should a declaration ever get past the DOCTYPE. */
static void refuse_entity_decl(void *ctx, const xmlChar *name, int type,
			       const xmlChar *public_id, const xmlChar *system_id,
			       xmlChar *content)
{
	(void)name; (void)type; (void)public_id; (void)system_id; (void)content;
	guard_stop(ctx, "entity declarations are not allowed in a DOAP file");
}

static int xml_error(const xmlParserCtxtPtr ctxt, const char *name, struct pst_err *e)
{
	const xmlError *err = &ctxt->lastError;
	char msg[256];
	size_t len;

	if (err->message == NULL)
		return pst_fail(e, EINVAL, "%s: not well-formed XML", name);
	len = strlen(err->message);
	if (len >= sizeof(msg))
		len = sizeof(msg) - 1;
	memcpy(msg, err->message, len);
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
		len--;
	msg[len] = '\0';
	return pst_fail(e, EINVAL, "%s:%d:%d: %s", name, err->line, err->int2, msg);
}

/* libxml2 parse with every dangerous feature off; returns the doc or NULL. */
static xmlDocPtr doap_read(const char *buf, size_t len, const char *name, struct pst_err *e)
{
	struct guard g = { 0 };
	xmlParserCtxtPtr ctxt;
	xmlDocPtr doc = NULL;

	if (len > DOAP_FILE_MAX) {
		pst_fail(e, EFBIG, "%s: larger than %d bytes", name, DOAP_FILE_MAX);
		return NULL;
	}
	ctxt = xmlCreateMemoryParserCtxt(buf, (int)len);
	if (ctxt == NULL) {
		pst_fail(e, ENOMEM, "%s: cannot create an XML parser", name);
		return NULL;
	}
	/* No NOENT, DTDLOAD, DTDATTR, XINCLUDE or HUGE: entities stay unexpanded,
	 * nothing is fetched, libxml2's own size limits apply. */
	xmlCtxtUseOptions(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
			  XML_PARSE_NOCDATA);
	ctxt->_private = &g;
	ctxt->sax->entityDecl = refuse_entity_decl;
	ctxt->sax->internalSubset = refuse_doctype;
	xmlParseDocument(ctxt);
	if (g.refused != NULL)
		pst_fail(e, EINVAL, "%s:%lu:%lu: %s", name, g.line, g.col, g.refused);
	else if (!ctxt->wellFormed || ctxt->myDoc == NULL)
		xml_error(ctxt, name, e);
	else
		doc = ctxt->myDoc;
	if (doc == NULL && ctxt->myDoc != NULL)
		xmlFreeDoc(ctxt->myDoc);
	ctxt->myDoc = NULL;
	xmlFreeParserCtxt(ctxt);
	return doc;
}

static bool is_elem(const xmlNode *n, const char *ns, const char *local)
{
	return n->type == XML_ELEMENT_NODE && n->ns != NULL && n->ns->href != NULL &&
	       strcmp((const char *)n->ns->href, ns) == 0 &&
	       strcmp((const char *)n->name, local) == 0;
}

static const xmlNode *child_elem(const xmlNode *parent, const char *ns, const char *local)
{
	const xmlNode *c;

	for (c = parent->children; c != NULL; c = c->next)
		if (is_elem(c, ns, local))
			return c;
	return NULL;
}

/* The element's text with surrounding white space removed; NULL when empty. */
static char *trimmed_text(const xmlNode *n)
{
	xmlChar *raw = xmlNodeGetContent(n);
	const char *s, *end;
	char *out = NULL;

	if (raw == NULL)
		return NULL;
	s = (const char *)raw;
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	end = s + strlen(s);
	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end > s)
		out = strndup(s, (size_t)(end - s));
	xmlFree(raw);
	return out;
}

static bool homepage_is_gitlab_gnome(const xmlNode *account)
{
	const xmlNode *home = child_elem(account, NS_FOAF, "accountServiceHomepage");
	xmlChar *url;
	bool yes;

	if (home == NULL)
		return false;
	url = xmlGetNsProp(home, (const xmlChar *)"resource", (const xmlChar *)NS_RDF);
	if (url == NULL)
		return false;
	yes = strcmp((const char *)url, "https://" GITLAB_GNOME) == 0 ||
	      strcmp((const char *)url, "https://" GITLAB_GNOME "/") == 0 ||
	      strcmp((const char *)url, "http://" GITLAB_GNOME) == 0 ||
	      strcmp((const char *)url, "http://" GITLAB_GNOME "/") == 0;
	xmlFree(url);
	return yes;
}

/* foaf:account/foaf:OnlineAccount/foaf:accountName, gitlab.gnome.org first. */
static char *account_name(const xmlNode *person)
{
	const xmlNode *acc, *online, *name;
	char *first = NULL;

	for (acc = person->children; acc != NULL; acc = acc->next) {
		if (!is_elem(acc, NS_FOAF, "account"))
			continue;
		online = child_elem(acc, NS_FOAF, "OnlineAccount");
		name = online ? child_elem(online, NS_FOAF, "accountName") : NULL;
		if (name == NULL)
			continue;
		if (homepage_is_gitlab_gnome(online)) {
			free(first);
			return trimmed_text(name);
		}
		if (first == NULL)
			first = trimmed_text(name);
	}
	return first;
}

static int add_person(const xmlNode *person, const char *name, struct doap_maintainers *out,
		      struct pst_err *e)
{
	const xmlNode *uid = child_elem(person, NS_GNOME, "userid");
	const xmlNode *fname = child_elem(person, NS_FOAF, "name");
	struct doap_person *p;

	if (out->n >= DOAP_MAINTAINERS_MAX)
		return pst_fail(e, EINVAL, "%s: more than %d maintainers", name,
				DOAP_MAINTAINERS_MAX);
	p = &out->v[out->n];
	p->userid = uid ? trimmed_text(uid) : NULL;
	if (p->userid == NULL)
		p->userid = account_name(person);
	p->name = fname ? trimmed_text(fname) : NULL;
	out->n++;
	return 0;
}

/* What to do with one element of a DOAP file. */
typedef int element_fn(const xmlNode *n, const char *name, struct doap_maintainers *out,
		       struct pst_err *e);

/* fn on each child element ns:local of parent, in order; the first error stops. */
static int each_element(const xmlNode *parent, const char *ns, const char *local,
			element_fn *fn, const char *name, struct doap_maintainers *out,
			struct pst_err *e)
{
	const xmlNode *c;
	int rc;

	for (c = parent->children; c != NULL; c = c->next) {
		if (!is_elem(c, ns, local))
			continue;
		rc = fn(c, name, out, e);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int collect_maintainer(const xmlNode *m, const char *name, struct doap_maintainers *out,
			      struct pst_err *e)
{
	return each_element(m, NS_FOAF, "Person", add_person, name, out, e);
}

static int collect_project(const xmlNode *project, const char *name,
			   struct doap_maintainers *out, struct pst_err *e)
{
	return each_element(project, NS_DOAP, "maintainer", collect_maintainer, name, out, e);
}

/* The doap:Project root, or each doap:Project inside an rdf:RDF wrapper. */
static int collect(const xmlNode *root, const char *name, struct doap_maintainers *out,
		   struct pst_err *e)
{
	if (is_elem(root, NS_DOAP, "Project"))
		return collect_project(root, name, out, e);
	if (!is_elem(root, NS_RDF, "RDF"))
		return pst_fail(e, EINVAL, "%s:%d: the root element is not a doap:Project",
				name, (int)xmlGetLineNo(root));
	return each_element(root, NS_DOAP, "Project", collect_project, name, out, e);
}

int doap_parse(const char *buf, size_t len, const char *name,
	       struct doap_maintainers *out, struct pst_err *e)
{
	xmlDocPtr doc;
	const xmlNode *root;
	int rc;

	out->v = NULL;
	out->n = 0;
	doc = doap_read(buf, len, name, e);
	if (doc == NULL)
		return -EINVAL;
	root = xmlDocGetRootElement(doc);
	out->v = calloc(DOAP_MAINTAINERS_MAX, sizeof(*out->v));
	if (out->v == NULL)
		rc = pst_fail(e, ENOMEM, "out of memory");
	else if (root == NULL)
		rc = pst_fail(e, EINVAL, "%s: no root element", name);
	else
		rc = collect(root, name, out, e);
	xmlFreeDoc(doc);
	if (rc < 0)
		doap_maintainers_free(out);
	return rc;
}

void doap_maintainers_free(struct doap_maintainers *m)
{
	size_t i;

	for (i = 0; m->v != NULL && i < m->n; i++) {
		free(m->v[i].userid);
		free(m->v[i].name);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}
