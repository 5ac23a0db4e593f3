/* The Claude Code reader's hot path in C: one transcript line folded straight into a file's
 * state, for the two record shapes that carry nearly every byte of a transcript (an assistant
 * turn and a user record of tool results).
 *
 * `fold(line, meta, events, sidechains)` returns 1 when it folded the line exactly as
 * `ClaudeSource.feed` would have, 2 for a sidechain record it skipped (the caller counts it), and
 * 0 when it did not handle the line: then nothing was changed and the caller takes the Python
 * path (orjson and `feed`), which stays the reference. Anything unusual is left to that path: a
 * typed prompt, another record type, an escaped key, a value of an unexpected type, a timestamp
 * that is not plain UTC ISO-8601, JSON that orjson might read differently (a huge number, deep
 * nesting, a lone surrogate) and any line that is not valid JSON and UTF-8.
 *
 * The line is read once. Only the values `feed` reads are decoded; everything else is validated
 * and skipped, so a multi-KB tool output costs a scan, not a string. A tool result's text is
 * decoded only as far as its kept window reaches (see `configure`).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* setup.py defines it as the SHA-256 of this file, so claude.py can tell a stale build from a
 * current one (an editable install whose C source changed since it was compiled). */
#ifndef SOURCE_DIGEST
#define SOURCE_DIGEST ""
#endif

#define MAX_DEPTH 64
#define MAX_BLOCKS 64
#define MAX_PARTS 32
#define MAX_NUMBER 40

/* Kept windows (characters): the kept length plus the redaction margin, from `_events`. */
static Py_ssize_t text_window = 2064, input_window = 464, result_window = 464;

static PyObject *s_assistant, *s_call, *s_result, *s_interrupt;
static PyObject *s_session_id, *s_cwd, *s_git_branch, *s_model;

enum { V_ABSENT = 0, V_STRING, V_TRUE, V_FALSE, V_NULL, V_NUMBER, V_OBJECT, V_ARRAY };

typedef struct {
    const char *start; /* a string's bytes between its quotes, else the value's first byte */
    const char *end;
    int kind;
    int escaped; /* a string holding a backslash escape */
} Val;

typedef struct {
    Val type, text, id, name, tool_use_id, content, is_error, input_value;
    Val input[6]; /* command, file_path, pattern, url, query, prompt: `_tool_input`'s order */
    int element;  /* the kind of this content element (only an object has the fields above) */
    int parts;    /* text blocks of a tool result's content (`_text_of`) */
    Val part_type[MAX_PARTS], part_text[MAX_PARTS];
} Block;

typedef struct {
    Val type, is_sidechain, session_id, cwd, forked_from, git_branch, message, timestamp, uuid;
    Val is_meta, is_compact, is_visible_only, outcome;
    Val model, content;
    Val stdout_, interrupted, background;
    int nblocks; /* elements of an array content, whatever their kind */
    Block blocks[MAX_BLOCKS];
} Record;

typedef struct {
    const unsigned char *p, *end;
    int depth;
} Cur;

/* byte classes inside a JSON string: 0 plain ASCII, 1 quote, 2 backslash, 3 control, 4 high */
static unsigned char string_class[256];

static void init_classes(void) {
    for (int c = 0; c < 256; c++)
        string_class[c] = c < 0x20 ? 3 : c >= 0x80 ? 4 : 0;
    string_class['"'] = 1;
    string_class['\\'] = 2;
}

/* The first byte at or after `p` that ends a run of plain string bytes (a quote, a backslash,
 * a control character or a non-ASCII byte), or `end`: 16 bytes a step with SSE2, 8 elsewhere. */
static const unsigned char *plain_run(const unsigned char *p, const unsigned char *end) {
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
    const __m128i below_space = _mm_set1_epi8(0x1F);
    while (end - p >= 16) {
        __m128i chunk = _mm_loadu_si128((const __m128i *)p);
        __m128i special = _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(chunk, quote), _mm_cmpeq_epi8(chunk, backslash)),
            _mm_cmpeq_epi8(_mm_max_epu8(chunk, below_space), below_space));
        int mask = _mm_movemask_epi8(special) | _mm_movemask_epi8(chunk); /* | high bit */
        if (mask) return p + __builtin_ctz((unsigned)mask);
        p += 16;
    }
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - p >= 8) {
        uint64_t v, q, b;
        memcpy(&v, p, 8);
        q = v ^ (ones * '"');
        b = v ^ (ones * '\\');
        uint64_t special = (v & highs) | ((v - ones * 0x20) & ~v & highs) |
                           ((q - ones) & ~q & highs) | ((b - ones) & ~b & highs);
        if (special) return p + (__builtin_ctzll(special) >> 3);
        p += 8;
    }
#endif
    while (p < end && string_class[*p] == 0) p++;
    return p;
}

static void skip_ws(Cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int hex4(const unsigned char *p, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = p[i];
        v <<= 4;
        if (ch >= '0' && ch <= '9') v |= ch - '0';
        else if (ch >= 'a' && ch <= 'f') v |= ch - 'a' + 10;
        else if (ch >= 'A' && ch <= 'F') v |= ch - 'A' + 10;
        else return 0;
    }
    *out = v;
    return 1;
}

/* One UTF-8 sequence starting at a high byte, strictly (no overlong form, no surrogate, at
 * most U+10FFFF); returns its length or 0. */
static int utf8_sequence(const unsigned char *p, const unsigned char *end) {
    unsigned char b0 = p[0];
    int len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) len = 2;
    else if (b0 >= 0xE0 && b0 <= 0xEF) {
        len = 3;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        len = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else return 0;
    if (end - p < len) return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (int i = 2; i < len; i++)
        if (p[i] < 0x80 || p[i] > 0xBF) return 0;
    return len;
}

/* At an opening quote: validate the string, fill `v`; 0 when it is not one orjson reads as we
 * would (a lone or reversed surrogate escape, a control character, invalid UTF-8). */
static int read_string(Cur *c, Val *v) {
    const unsigned char *p = c->p + 1, *end = c->end;
    int escaped = 0;
    for (;;) {
        p = plain_run(p, end);
        if (p >= end) return 0;
        switch (string_class[*p]) {
        case 1:
            v->kind = V_STRING;
            v->start = (const char *)c->p + 1;
            v->end = (const char *)p;
            v->escaped = escaped;
            c->p = p + 1;
            return 1;
        case 2: {
            escaped = 1;
            if (end - p < 2) return 0;
            unsigned char e = p[1];
            if (e == 'u') {
                unsigned u, low;
                if (end - p < 6 || !hex4(p + 2, &u)) return 0;
                p += 6;
                if (u >= 0xDC00 && u <= 0xDFFF) return 0;
                if (u >= 0xD800 && u <= 0xDBFF) {
                    if (end - p < 6 || p[0] != '\\' || p[1] != 'u' || !hex4(p + 2, &low)) return 0;
                    if (low < 0xDC00 || low > 0xDFFF) return 0;
                    p += 6;
                }
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                p += 2;
            } else return 0;
            break;
        }
        case 3:
            return 0;
        default: {
            int n = utf8_sequence(p, end);
            if (!n) return 0;
            p += n;
        }
        }
    }
}

static int skip_number(Cur *c) {
    const unsigned char *p = c->p, *end = c->end, *begin = c->p;
    if (p < end && *p == '-') p++;
    if (p >= end) return 0;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (p < end && *p >= '0' && *p <= '9') p++;
    else return 0;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9') return 0;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        const unsigned char *digits = p;
        while (p < end && *p >= '0' && *p <= '9') p++;
        if (p == digits || p - digits > 2) return 0; /* |exponent| >= 100: orjson may refuse */
    }
    if (p - begin > MAX_NUMBER) return 0; /* a huge literal could overflow to infinity */
    c->p = p;
    return 1;
}

static int read_value(Cur *c, Val *v);

/* Objects and arrays, walked in place: open, then a key (objects) and a value per member. */
static int open_container(Cur *c, unsigned char open, unsigned char close, int *empty) {
    if (c->p >= c->end || *c->p != open || ++c->depth > MAX_DEPTH) return 0;
    c->p++;
    skip_ws(c);
    *empty = c->p < c->end && *c->p == close;
    if (*empty) {
        c->p++;
        c->depth--;
    }
    return 1;
}

/* After a member's value: 1 and `*more` set when well formed. */
static int next_member(Cur *c, unsigned char close, int *more) {
    skip_ws(c);
    if (c->p >= c->end) return 0;
    if (*c->p == ',') {
        c->p++;
        skip_ws(c);
        *more = 1;
        return 1;
    }
    if (*c->p != close) return 0;
    c->p++;
    c->depth--;
    *more = 0;
    return 1;
}

/* A member's key and its colon. An escaped key could spell a wanted one: not handled. */
static int member_key(Cur *c, const char **key, Py_ssize_t *len) {
    Val k;
    if (c->p >= c->end || *c->p != '"' || !read_string(c, &k) || k.escaped) return 0;
    skip_ws(c);
    if (c->p >= c->end || *c->p != ':') return 0;
    c->p++;
    skip_ws(c);
    *key = k.start;
    *len = k.end - k.start;
    return 1;
}

static int skip_container(Cur *c, unsigned char open, unsigned char close) {
    int empty, more = 1;
    if (!open_container(c, open, close, &empty)) return 0;
    if (empty) return 1;
    while (more) {
        Val scratch;
        if (open == '{') {
            const char *key;
            Py_ssize_t len;
            if (!member_key(c, &key, &len)) {
                /* an escaped key is fine where no key matters */
                if (c->p >= c->end || *c->p != '"' || !read_string(c, &scratch)) return 0;
                skip_ws(c);
                if (c->p >= c->end || *c->p != ':') return 0;
                c->p++;
                skip_ws(c);
            }
        }
        if (!read_value(c, &scratch) || !next_member(c, close, &more)) return 0;
    }
    return 1;
}

static int literal(Cur *c, const char *word, int kind, Val *v) {
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0) return 0;
    c->p += n;
    v->kind = kind;
    v->end = (const char *)c->p;
    return 1;
}

/* Any value, validated; a container is skipped (`v` says where it was). */
static int read_value(Cur *c, Val *v) {
    if (c->p >= c->end) return 0;
    v->start = (const char *)c->p;
    v->escaped = 0;
    switch (*c->p) {
    case '"':
        return read_string(c, v);
    case '{':
        v->kind = V_OBJECT;
        if (!skip_container(c, '{', '}')) return 0;
        break;
    case '[':
        v->kind = V_ARRAY;
        if (!skip_container(c, '[', ']')) return 0;
        break;
    case 't':
        return literal(c, "true", V_TRUE, v);
    case 'f':
        return literal(c, "false", V_FALSE, v);
    case 'n':
        return literal(c, "null", V_NULL, v);
    default:
        v->kind = V_NUMBER;
        if (!skip_number(c)) return 0;
    }
    v->end = (const char *)c->p;
    return 1;
}

/* A wanted member's value, once: a repeated key (orjson keeps the last) is not handled. */
static int read_once(Cur *c, Val *slot) {
    return slot->kind == V_ABSENT && read_value(c, slot);
}

#define KEY_IS(word) (len == (Py_ssize_t)sizeof(word) - 1 && memcmp(key, word, len) == 0)

static int is_container(Cur *c, unsigned char open) { return c->p < c->end && *c->p == open; }

/* `{"type": ..., "text": ...}` inside a tool result's content list. */
static int read_part(Cur *c, Block *b) {
    int empty, more = 1;
    if (b->parts >= MAX_PARTS) return 0;
    Val *type = &b->part_type[b->parts], *text = &b->part_text[b->parts];
    type->kind = text->kind = V_ABSENT;
    b->parts++;
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        Val scratch;
        if (!member_key(c, &key, &len)) return 0;
        if (KEY_IS("type") ? !read_once(c, type)
            : KEY_IS("text") ? !read_once(c, text)
                             : !read_value(c, &scratch))
            return 0;
        if (!next_member(c, '}', &more)) return 0;
    }
    return 1;
}

static int read_result_content(Cur *c, Block *b) {
    int empty, more = 1;
    b->content.start = (const char *)c->p;
    b->content.kind = V_ARRAY;
    if (!open_container(c, '[', ']', &empty)) return 0;
    while (!empty && more) {
        Val scratch;
        if (is_container(c, '{')) {
            if (!read_part(c, b)) return 0;
        } else if (!read_value(c, &scratch)) return 0;
        if (!next_member(c, ']', &more)) return 0;
    }
    b->content.end = (const char *)c->p;
    return 1;
}

static int read_input(Cur *c, Block *b) {
    static const char *const fields[6] = {"command", "file_path", "pattern", "url", "query",
                                          "prompt"};
    int empty, more = 1;
    b->input_value.start = (const char *)c->p;
    b->input_value.kind = V_OBJECT;
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        Val scratch, *slot = NULL;
        if (!member_key(c, &key, &len)) return 0;
        for (int i = 0; i < 6 && slot == NULL; i++)
            if (len == (Py_ssize_t)strlen(fields[i]) && memcmp(key, fields[i], len) == 0)
                slot = &b->input[i];
        if (slot ? !read_once(c, slot) : !read_value(c, &scratch)) return 0;
        if (!next_member(c, '}', &more)) return 0;
    }
    b->input_value.end = (const char *)c->p;
    return 1;
}

static int read_block(Cur *c, Block *b) {
    int empty, more = 1;
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        Val scratch;
        int ok;
        if (!member_key(c, &key, &len)) return 0;
        if (KEY_IS("type")) ok = read_once(c, &b->type);
        else if (KEY_IS("text")) ok = read_once(c, &b->text);
        else if (KEY_IS("id")) ok = read_once(c, &b->id);
        else if (KEY_IS("name")) ok = read_once(c, &b->name);
        else if (KEY_IS("tool_use_id")) ok = read_once(c, &b->tool_use_id);
        else if (KEY_IS("is_error")) ok = read_once(c, &b->is_error);
        else if (KEY_IS("content"))
            ok = b->content.kind == V_ABSENT &&
                 (is_container(c, '[') ? read_result_content(c, b) : read_value(c, &b->content));
        else if (KEY_IS("input"))
            ok = b->input_value.kind == V_ABSENT &&
                 (is_container(c, '{') ? read_input(c, b) : read_value(c, &b->input_value));
        else ok = read_value(c, &scratch);
        if (!ok || !next_member(c, '}', &more)) return 0;
    }
    return 1;
}

static int read_blocks(Cur *c, Record *r) {
    int empty, more = 1;
    r->content.start = (const char *)c->p;
    r->content.kind = V_ARRAY;
    if (!open_container(c, '[', ']', &empty)) return 0;
    while (!empty && more) {
        if (r->nblocks >= MAX_BLOCKS) return 0;
        Block *b = &r->blocks[r->nblocks++];
        memset(b, 0, sizeof(Block) - sizeof(b->part_type) - sizeof(b->part_text));
        if (is_container(c, '{')) {
            b->element = V_OBJECT;
            if (!read_block(c, b)) return 0;
        } else {
            Val scratch; /* not an object: only its kind matters */
            if (!read_value(c, &scratch)) return 0;
            b->element = scratch.kind;
        }
        if (!next_member(c, ']', &more)) return 0;
    }
    r->content.end = (const char *)c->p;
    return 1;
}

static int read_message(Cur *c, Record *r) {
    int empty, more = 1;
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        Val scratch;
        int ok;
        if (!member_key(c, &key, &len)) return 0;
        if (KEY_IS("model")) ok = read_once(c, &r->model);
        else if (KEY_IS("content"))
            ok = r->content.kind == V_ABSENT &&
                 (is_container(c, '[') ? read_blocks(c, r) : read_value(c, &r->content));
        else ok = read_value(c, &scratch);
        if (!ok || !next_member(c, '}', &more)) return 0;
    }
    return 1;
}

static int read_outcome(Cur *c, Record *r) {
    int empty, more = 1;
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        Val scratch;
        int ok;
        if (!member_key(c, &key, &len)) return 0;
        if (KEY_IS("stdout")) ok = read_once(c, &r->stdout_);
        else if (KEY_IS("interrupted")) ok = read_once(c, &r->interrupted);
        else if (KEY_IS("backgroundTaskId")) ok = read_once(c, &r->background);
        else ok = read_value(c, &scratch);
        if (!ok || !next_member(c, '}', &more)) return 0;
    }
    return 1;
}

static int read_record(Cur *c, Record *r) {
    int empty, more = 1;
    skip_ws(c);
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        Val scratch, *slot = NULL;
        int ok;
        if (!member_key(c, &key, &len)) return 0;
        if (KEY_IS("message")) {
            Val *m = &r->message;
            if (m->kind != V_ABSENT) return 0;
            m->start = (const char *)c->p;
            if (is_container(c, '{')) {
                m->kind = V_OBJECT;
                ok = read_message(c, r);
            } else ok = read_value(c, m);
            m->end = (const char *)c->p;
        } else if (KEY_IS("toolUseResult")) {
            Val *o = &r->outcome;
            if (o->kind != V_ABSENT) return 0;
            o->start = (const char *)c->p;
            if (is_container(c, '{')) {
                o->kind = V_OBJECT;
                ok = read_outcome(c, r);
            } else ok = read_value(c, o);
        } else {
            if (KEY_IS("type")) slot = &r->type;
            else if (KEY_IS("isSidechain")) slot = &r->is_sidechain;
            else if (KEY_IS("sessionId")) slot = &r->session_id;
            else if (KEY_IS("cwd")) slot = &r->cwd;
            else if (KEY_IS("forkedFrom")) slot = &r->forked_from;
            else if (KEY_IS("gitBranch")) slot = &r->git_branch;
            else if (KEY_IS("timestamp")) slot = &r->timestamp;
            else if (KEY_IS("uuid")) slot = &r->uuid;
            else if (KEY_IS("isMeta")) slot = &r->is_meta;
            else if (KEY_IS("isCompactSummary")) slot = &r->is_compact;
            else if (KEY_IS("isVisibleInTranscriptOnly")) slot = &r->is_visible_only;
            ok = slot ? read_once(c, slot) : read_value(c, &scratch);
        }
        if (!ok || !next_member(c, '}', &more)) return 0;
    }
    skip_ws(c);
    return c->p == c->end; /* nothing but whitespace after the record */
}

/* ---- values to Python ------------------------------------------------------------------- */

static int is_raw(const Val *v, const char *word) {
    size_t n = strlen(word);
    return v->kind == V_STRING && !v->escaped && (size_t)(v->end - v->start) == n &&
           memcmp(v->start, word, n) == 0;
}

/* A flag read for its truth: -1 when its kind would need Python's truth rules. */
static int flag(const Val *v) {
    switch (v->kind) {
    case V_ABSENT:
    case V_NULL:
    case V_FALSE:
        return 0;
    case V_TRUE:
        return 1;
    default:
        return -1;
    }
}

/* A string value, decoded to at most `cap` characters (0: all of it); NULL with no exception
 * when `v` is not a string. */
static PyObject *decode(const Val *v, Py_ssize_t cap) {
    if (v->kind != V_STRING) return NULL;
    const unsigned char *p = (const unsigned char *)v->start, *end = (const unsigned char *)v->end;
    if (!v->escaped) {
        if (cap > 0 && end - p > cap) { /* cut after `cap` characters (lead bytes) */
            Py_ssize_t chars = 0;
            const unsigned char *q = p;
            while (q < end) {
                if ((*q & 0xC0) != 0x80 && chars++ == cap) break;
                q++;
            }
            end = q;
        }
        return PyUnicode_DecodeUTF8((const char *)p, end - p, "strict");
    }
    char *buffer = PyMem_Malloc((size_t)(end - p) + 1);
    if (buffer == NULL) return PyErr_NoMemory();
    char *out = buffer;
    Py_ssize_t chars = 0;
    while (p < end && (cap <= 0 || chars < cap)) {
        if (*p != '\\') {
            int n = *p < 0x80 ? 1 : utf8_sequence(p, end);
            memcpy(out, p, n);
            out += n;
            p += n;
            chars++;
            continue;
        }
        unsigned char e = p[1];
        unsigned u = 0, low = 0;
        p += 2;
        switch (e) {
        case 'b': *out++ = '\b'; break;
        case 'f': *out++ = '\f'; break;
        case 'n': *out++ = '\n'; break;
        case 'r': *out++ = '\r'; break;
        case 't': *out++ = '\t'; break;
        case 'u':
            hex4(p, &u);
            p += 4;
            if (u >= 0xD800 && u <= 0xDBFF) { /* a pair, as validated */
                hex4(p + 2, &low);
                p += 6;
                u = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00);
            }
            if (u < 0x80) *out++ = (char)u;
            else if (u < 0x800) {
                *out++ = (char)(0xC0 | (u >> 6));
                *out++ = (char)(0x80 | (u & 0x3F));
            } else if (u < 0x10000) {
                *out++ = (char)(0xE0 | (u >> 12));
                *out++ = (char)(0x80 | ((u >> 6) & 0x3F));
                *out++ = (char)(0x80 | (u & 0x3F));
            } else {
                *out++ = (char)(0xF0 | (u >> 18));
                *out++ = (char)(0x80 | ((u >> 12) & 0x3F));
                *out++ = (char)(0x80 | ((u >> 6) & 0x3F));
                *out++ = (char)(0x80 | (u & 0x3F));
            }
            break;
        default: *out++ = (char)e; /* " \ / */
        }
        chars++;
    }
    PyObject *text = PyUnicode_DecodeUTF8(buffer, out - buffer, "strict");
    PyMem_Free(buffer);
    return text;
}

static int is_token_char(Py_UCS4 ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '+' || ch == '/' || ch == '=' || ch == '_' || ch == '.' || ch == '~' || ch == '-';
}

/* `_events._window`: the text, or its first `n` characters less a token run of 8+ the cut
 * splits. Steals `text`. */
static PyObject *window(PyObject *text, Py_ssize_t n) {
    if (text == NULL || PyUnicode_GET_LENGTH(text) <= n) return text;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Py_ssize_t keep = n;
    if (is_token_char(PyUnicode_READ(kind, data, n - 1)) &&
        is_token_char(PyUnicode_READ(kind, data, n))) {
        Py_ssize_t start = n;
        while (start > 0 && is_token_char(PyUnicode_READ(kind, data, start - 1))) start--;
        if (n - start >= 8) keep = start;
    }
    PyObject *kept = PyUnicode_Substring(text, 0, keep);
    Py_DECREF(text);
    return kept;
}

/* ---- time ------------------------------------------------------------------------------- */

static int digits(const char *p, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9') return 0;
        v = v * 10 + (p[i] - '0');
    }
    *out = v;
    return 1;
}

static int64_t days_from_civil(int y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* `parse_ts` for `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff](Z|+00:00)` between 2000 and 2100: 1 and
 * `*ts` set, or 0 for any other text (left to Python). Computed as `datetime.timestamp()` does:
 * whole microseconds divided by 10**6. */
static int iso_utc(const Val *v, double *ts) {
    if (v->kind != V_STRING || v->escaped) return 0;
    const char *s = v->start;
    Py_ssize_t n = v->end - v->start;
    int y, mo, d, h, mi, sec, us = 0;
    if (n < 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':')
        return 0;
    if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
        !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) || !digits(s + 17, 2, &sec))
        return 0;
    Py_ssize_t at = 19;
    if (s[at] == '.') {
        Py_ssize_t f = at + 1;
        while (f < n && s[f] >= '0' && s[f] <= '9') f++;
        int count = (int)(f - at - 1), frac;
        if ((count != 3 && count != 6) || !digits(s + at + 1, count, &frac)) return 0;
        us = count == 3 ? frac * 1000 : frac;
        at = f;
    }
    if (!((n - at == 1 && s[at] == 'Z') || (n - at == 6 && memcmp(s + at, "+00:00", 6) == 0)))
        return 0;
    static const int month_days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (y < 2000 || y > 2099 || mo < 1 || mo > 12 || d < 1 ||
        d > month_days[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 || sec > 59)
        return 0;
    int64_t seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec;
    *ts = (double)(seconds * 1000000 + us) / 1e6;
    return 1;
}

/* ---- the fold --------------------------------------------------------------------------- */

/* An optional text field read as `str(value or "")`: "" for a missing or false value, 1 and a
 * new reference in `*out`, or 0 for a kind only Python's `str()` should render. */
static int text_or_empty(const Val *v, PyObject **out, Py_ssize_t cap) {
    if (v->kind == V_ABSENT || v->kind == V_NULL || v->kind == V_FALSE) {
        *out = PyUnicode_New(0, 0);
        return *out != NULL;
    }
    if (v->kind != V_STRING) return 0;
    *out = decode(v, cap);
    return *out != NULL;
}

/* `_exit_code` for an error result: `Exit code (-?\d+)\b` at its start. 1 and `*code` (a new
 * reference, maybe None) set; 0 when only Python's Unicode-aware regex could say. */
static int exit_code(PyObject *excerpt, PyObject **code) {
    static const char prefix[] = "Exit code ";
    Py_ssize_t n = PyUnicode_GET_LENGTH(excerpt), at = sizeof(prefix) - 1;
    int kind = PyUnicode_KIND(excerpt);
    const void *data = PyUnicode_DATA(excerpt);
    *code = Py_None;
    Py_INCREF(Py_None);
    if (n < at) return 1;
    for (Py_ssize_t i = 0; i < at; i++)
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)prefix[i]) return 1;
    int negative = at < n && PyUnicode_READ(kind, data, at) == '-';
    Py_ssize_t first = at + negative, end = first;
    long long value = 0;
    while (end < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, end);
        if (ch >= 0x80) return 0;
        if (ch < '0' || ch > '9') break;
        if (end - first >= 18) return 0;
        value = value * 10 + (ch - '0');
        end++;
    }
    if (end == first) return 1;
    if (end < n) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, end);
        if (ch >= 0x80) return 0;
        if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || ch == '_') return 1;
    }
    Py_DECREF(Py_None);
    *code = PyLong_FromLongLong(negative ? -value : value);
    return *code != NULL ? 1 : -1;
}

static PyObject *part_key(PyObject *key, Py_ssize_t index) {
    if (key == Py_None) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    return PyUnicode_FromFormat("%U:%zd", key, index);
}

/* A tool result's text (`_text_of`), each piece decoded only up to its window and a character
 * past it: the window, the exit code and the interruption prefix all read the start. 0: not
 * handled; -1: error. */
static int result_text(const Block *b, PyObject **out) {
    Py_ssize_t cap = result_window + 1;
    if (b->content.kind == V_STRING) {
        *out = decode(&b->content, cap);
        return *out ? 1 : -1;
    }
    if (b->content.kind != V_ARRAY) {
        *out = PyUnicode_New(0, 0);
        return *out ? 1 : -1;
    }
    PyObject *pieces = PyList_New(0);
    if (pieces == NULL) return -1;
    for (int i = 0; i < b->parts; i++) {
        const Val *type = &b->part_type[i], *text = &b->part_text[i];
        if (type->kind == V_STRING && type->escaped) {
            Py_DECREF(pieces);
            return 0;
        }
        if (!is_raw(type, "text") || text->kind != V_STRING) continue;
        PyObject *piece = decode(text, cap);
        if (piece == NULL || PyList_Append(pieces, piece) < 0) {
            Py_XDECREF(piece);
            Py_DECREF(pieces);
            return -1;
        }
        Py_DECREF(piece);
    }
    PyObject *newline = PyUnicode_FromString("\n");
    *out = newline ? PyUnicode_Join(newline, pieces) : NULL;
    Py_XDECREF(newline);
    Py_DECREF(pieces);
    return *out ? 1 : -1;
}

static int event(PyObject *events, Py_ssize_t size, ...) {
    va_list args;
    PyObject *item = PyList_New(size);
    if (item == NULL) return -1;
    va_start(args, size);
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *value = va_arg(args, PyObject *);
        Py_INCREF(value);
        PyList_SET_ITEM(item, i, value);
    }
    va_end(args);
    int failed = PyList_Append(events, item);
    Py_DECREF(item);
    return failed;
}

/* The assistant turn's events; 0: not handled, -1: error. */
static int assistant_events(const Record *r, PyObject *ts, PyObject *key, PyObject *out) {
    if (r->content.kind == V_STRING) {
        PyObject *text = window(decode(&r->content, 0), text_window);
        if (text == NULL) return -1;
        int failed = event(out, 4, s_assistant, ts, key, text);
        Py_DECREF(text);
        return failed ? -1 : 1;
    }
    if (r->content.kind != V_ARRAY) return 1;
    for (int i = 0; i < r->nblocks; i++) {
        const Block *b = &r->blocks[i];
        if (b->element != V_OBJECT || b->type.kind != V_STRING) continue;
        if (b->type.escaped) return 0;
        int is_text = is_raw(&b->type, "text"), is_call = is_raw(&b->type, "tool_use");
        if (!is_text && !is_call) continue;
        PyObject *text = NULL, *id = NULL, *name = NULL, *input = NULL, *part = NULL;
        int status = 1;
        if (is_text) {
            if (!text_or_empty(&b->text, &text, 0)) status = PyErr_Occurred() ? -1 : 0;
        } else {
            const Val *chosen = NULL;
            for (int f = 0; f < 6 && chosen == NULL; f++)
                if (b->input[f].kind == V_STRING) chosen = &b->input[f];
            int no_input = b->input_value.kind == V_ABSENT || b->input_value.kind == V_NULL;
            if (!text_or_empty(&b->id, &id, 0) || !text_or_empty(&b->name, &name, 0))
                status = PyErr_Occurred() ? -1 : 0;
            else if (no_input) input = PyUnicode_New(0, 0);
            else if (b->input_value.kind == V_OBJECT && chosen != NULL) input = decode(chosen, 0);
            else status = 0; /* `_tool_input` would serialise it */
            if (status == 1 && input == NULL) status = -1;
        }
        if (status == 1) part = part_key(key, i);
        if (status == 1 && part == NULL) status = -1;
        if (status == 1 && is_text) {
            text = window(text, text_window);
            status = text == NULL ? -1 : event(out, 4, s_assistant, ts, part, text) ? -1 : 1;
        } else if (status == 1) {
            input = window(input, input_window);
            status = input == NULL ? -1
                     : event(out, 6, s_call, ts, part, id, name, input) ? -1
                                                                        : 1;
        }
        Py_XDECREF(text);
        Py_XDECREF(id);
        Py_XDECREF(name);
        Py_XDECREF(input);
        Py_XDECREF(part);
        if (status != 1) return status;
    }
    return 1;
}

static const char interrupted_prefix[] = "[Request interrupted by user";

static int starts_with_interrupt(PyObject *text) {
    Py_ssize_t n = sizeof(interrupted_prefix) - 1;
    if (PyUnicode_GET_LENGTH(text) < n) return 0;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < n; i++)
        if (PyUnicode_READ(kind, data, i) != (Py_UCS4)interrupted_prefix[i]) return 0;
    return 1;
}

/* Whether Bash's `toolUseResult` says the command exited 0 (see `_exit_code`); -1: not
 * handled. */
static int exited_cleanly(const Record *r) {
    if (r->outcome.kind != V_OBJECT || r->stdout_.kind == V_ABSENT) return 0;
    if (r->interrupted.kind != V_FALSE) return 0;
    const Val *bg = &r->background;
    if (bg->kind == V_ABSENT || bg->kind == V_NULL || bg->kind == V_FALSE) return 1;
    if (bg->kind == V_STRING) return bg->start == bg->end; /* "" is false */
    if (bg->kind == V_TRUE) return 0;
    return -1;
}

/* The tool results' events; 0: not handled, -1: error. */
static int result_events(const Record *r, PyObject *ts, PyObject *key, PyObject *out) {
    for (int i = 0; i < r->nblocks; i++) { /* first, what only Python handles */
        const Block *b = &r->blocks[i];
        if (b->element == V_STRING) return 0;
        if (b->element != V_OBJECT || b->type.kind != V_STRING) continue;
        if (b->type.escaped || is_raw(&b->type, "text")) return 0;
        if (is_raw(&b->type, "tool_result") && flag(&b->is_error) < 0) return 0;
    }
    int clean = r->nblocks == 1 ? exited_cleanly(r) : 0;
    if (clean < 0) return 0;
    for (int i = 0; i < r->nblocks; i++) {
        const Block *b = &r->blocks[i];
        if (b->element != V_OBJECT || !is_raw(&b->type, "tool_result")) continue;
        PyObject *call_id = NULL, *excerpt = NULL, *code = NULL, *part = NULL, *kept = NULL;
        int error = flag(&b->is_error), status = 1;
        if (!text_or_empty(&b->tool_use_id, &call_id, 0)) status = PyErr_Occurred() ? -1 : 0;
        if (status == 1) status = result_text(b, &excerpt);
        if (status == 1 && error) status = exit_code(excerpt, &code);
        if (status == 1 && !error) {
            code = clean ? PyLong_FromLong(0) : Py_None;
            if (code == Py_None) Py_INCREF(code);
            if (code == NULL) status = -1;
        }
        if (status == 1 && (part = part_key(key, i)) == NULL) status = -1;
        if (status == 1) {
            Py_INCREF(excerpt);
            kept = window(excerpt, result_window);
            if (kept == NULL) status = -1;
        }
        if (status == 1 && event(out, 7, s_result, ts, part, call_id, kept,
                                 error ? Py_True : Py_False, code))
            status = -1;
        if (status == 1 && starts_with_interrupt(excerpt)) {
            PyObject *mark = part == Py_None ? Py_None : PyUnicode_FromFormat("%U:i", part);
            if (mark == Py_None) Py_INCREF(mark);
            status = mark == NULL ? -1 : event(out, 3, s_interrupt, ts, mark) ? -1 : 1;
            Py_XDECREF(mark);
        }
        Py_XDECREF(call_id);
        Py_XDECREF(excerpt);
        Py_XDECREF(code);
        Py_XDECREF(part);
        Py_XDECREF(kept);
        if (status != 1) return status;
    }
    return 1;
}

static int set_if_unset(PyObject *meta, PyObject *name, PyObject *value) {
    if (value == NULL || PyUnicode_GET_LENGTH(value) == 0) return 0;
    PyObject *old = PyDict_GetItemWithError(meta, name);
    if (old == NULL && PyErr_Occurred()) return -1;
    if (old != NULL) {
        int truth = PyObject_IsTrue(old);
        if (truth) return truth < 0 ? -1 : 0;
    }
    return PyDict_SetItem(meta, name, value);
}

/* The session facts every record repeats (`feed`'s first lines). */
static int update_meta(PyObject *meta, PyObject *session, PyObject *cwd, PyObject *branch) {
    if (set_if_unset(meta, s_session_id, session) < 0 || set_if_unset(meta, s_cwd, cwd) < 0)
        return -1;
    if (branch == NULL || PyUnicode_GET_LENGTH(branch) == 0 ||
        PyUnicode_CompareWithASCIIString(branch, "HEAD") == 0)
        return 0;
    PyObject *old = PyDict_GetItemWithError(meta, s_git_branch);
    if (old == NULL && PyErr_Occurred()) return -1;
    if (old != NULL) {
        int differs = PyObject_RichCompareBool(branch, old, Py_NE);
        if (differs <= 0) return differs;
    }
    return PyDict_SetItem(meta, s_git_branch, branch);
}

static int optional_text(const Val *v) {
    return v->kind == V_ABSENT || v->kind == V_NULL || v->kind == V_STRING;
}

/* One line (`p` to `end`, no newline) folded into `meta` and `events`: 1 folded, 2 a sidechain
 * record skipped, 0 not handled (nothing changed), -1 an exception. `r` is scratch space. */
static int fold_span(Record *r, const unsigned char *p, const unsigned char *end, PyObject *meta,
                     PyObject *events, int sidechains) {
    memset(r, 0, offsetof(Record, blocks));
    Cur c = {p, end, 0};
    int handled = 0;
    PyObject *ts = NULL, *key = NULL, *session = NULL, *cwd = NULL, *branch = NULL;
    PyObject *model = NULL, *out = NULL;
    int assistant, side, ignored = 0, status = 0;
    Py_ssize_t size;
    double seconds = 0;
    if (!read_record(&c, r)) goto done;
    assistant = is_raw(&r->type, "assistant");
    if (!assistant && !is_raw(&r->type, "user")) goto done;
    side = flag(&r->is_sidechain);
    if (side < 0) goto done;
    if (side && !sidechains) {
        handled = 2;
        goto done;
    }
    if (!optional_text(&r->session_id) || !optional_text(&r->cwd) ||
        !optional_text(&r->git_branch) || r->message.kind != V_OBJECT)
        goto done;
    if (r->forked_from.kind != V_ABSENT && r->forked_from.kind != V_NULL) goto done;
    if (r->timestamp.kind != V_ABSENT && r->timestamp.kind != V_NULL &&
        !iso_utc(&r->timestamp, &seconds))
        goto done;
    if (!assistant) {
        int a = flag(&r->is_meta), b = flag(&r->is_compact), v = flag(&r->is_visible_only);
        if (a < 0 || b < 0 || v < 0) goto done;
        ignored = a || b || v;
        if (!ignored && r->content.kind != V_ARRAY) goto done; /* a typed prompt: Python's */
    }
    status = -1; /* from here on a failure is an exception */
    if (r->timestamp.kind == V_STRING) {
        if ((ts = PyFloat_FromDouble(seconds)) == NULL) goto done;
    } else {
        ts = Py_None;
        Py_INCREF(ts);
    }
    if (r->uuid.kind == V_STRING && r->uuid.start != r->uuid.end) {
        if ((key = decode(&r->uuid, 0)) == NULL) goto done;
    } else {
        key = Py_None;
        Py_INCREF(key);
    }
    if ((r->session_id.kind == V_STRING && (session = decode(&r->session_id, 0)) == NULL) ||
        (r->cwd.kind == V_STRING && (cwd = decode(&r->cwd, 0)) == NULL) ||
        (r->git_branch.kind == V_STRING && (branch = decode(&r->git_branch, 0)) == NULL))
        goto done;
    if ((out = PyList_New(0)) == NULL) goto done;
    if (assistant) {
        if (r->model.kind == V_STRING && (model = decode(&r->model, 0)) == NULL) goto done;
        status = assistant_events(r, ts, key, out);
    } else status = ignored ? 1 : result_events(r, ts, key, out);
    if (status != 1) goto done;
    status = -1;
    if (update_meta(meta, session, cwd, branch) < 0) goto done;
    if (model != NULL && PyUnicode_GET_LENGTH(model) > 0 &&
        PyUnicode_READ_CHAR(model, 0) != '<' && PyDict_SetItem(meta, s_model, model) < 0)
        goto done;
    size = PyList_GET_SIZE(events);
    if (PyList_SetSlice(events, size, size, out) < 0) goto done;
    status = 1;
    handled = 1;
done:
    Py_XDECREF(ts);
    Py_XDECREF(key);
    Py_XDECREF(session);
    Py_XDECREF(cwd);
    Py_XDECREF(branch);
    Py_XDECREF(model);
    Py_XDECREF(out);
    if (status < 0 && PyErr_Occurred()) return -1;
    PyErr_Clear();
    return handled;
}

static int sidechains_arg(PyObject *value) { return PyObject_IsTrue(value); }

static PyObject *fold(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4 || !PyBytes_Check(args[0]) || !PyDict_Check(args[1]) ||
        !PyList_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "fold(line: bytes, meta: dict, events: list, "
                                         "sidechains: bool)");
        return NULL;
    }
    int sidechains = sidechains_arg(args[3]);
    if (sidechains < 0) return NULL;
    Record *r = PyMem_Malloc(sizeof(Record));
    if (r == NULL) return PyErr_NoMemory();
    const unsigned char *p = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    int handled = fold_span(r, p, p + PyBytes_GET_SIZE(args[0]), args[1], args[2], sidechains);
    PyMem_Free(r);
    return handled < 0 ? NULL : PyLong_FromLong(handled);
}

/* The lines of `data[start:end]` folded in order until one is not handled: (where to go on,
 * that line's start and end or -1 and -1 when every line was folded, sidechain records
 * skipped). Empty lines are passed over. */
static PyObject *fold_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    Py_ssize_t start, end;
    if (nargs != 6 || !PyBytes_Check(args[0]) || !PyDict_Check(args[3]) ||
        !PyList_Check(args[4])) {
        PyErr_SetString(PyExc_TypeError, "fold_lines(data: bytes, start: int, end: int, "
                                         "meta: dict, events: list, sidechains: bool)");
        return NULL;
    }
    start = PyLong_AsSsize_t(args[1]);
    end = PyLong_AsSsize_t(args[2]);
    if ((start == -1 || end == -1) && PyErr_Occurred()) return NULL;
    if (start < 0 || end > PyBytes_GET_SIZE(args[0]) || start > end) {
        PyErr_SetString(PyExc_ValueError, "fold_lines: start and end must lie within data");
        return NULL;
    }
    int sidechains = sidechains_arg(args[5]);
    if (sidechains < 0) return NULL;
    Record *r = PyMem_Malloc(sizeof(Record));
    if (r == NULL) return PyErr_NoMemory();
    const unsigned char *base = (const unsigned char *)PyBytes_AS_STRING(args[0]);
    Py_ssize_t at = start, line_start = -1, line_end = -1, skipped = 0;
    while (at < end) {
        const unsigned char *newline = memchr(base + at, '\n', (size_t)(end - at));
        Py_ssize_t stop = newline ? newline - base : end;
        if (stop > at) {
            int handled = fold_span(r, base + at, base + stop, args[3], args[4], sidechains);
            if (handled < 0) {
                PyMem_Free(r);
                return NULL;
            }
            if (handled == 0) {
                line_start = at;
                line_end = stop;
                at = stop < end ? stop + 1 : end;
                break;
            }
            skipped += handled == 2;
        }
        at = stop < end ? stop + 1 : end;
    }
    PyMem_Free(r);
    return Py_BuildValue("(nnnn)", at, line_start, line_end, skipped);
}

static PyObject *configure(PyObject *module, PyObject *args) {
    (void)module;
    Py_ssize_t text, input, result;
    if (!PyArg_ParseTuple(args, "nnn", &text, &input, &result)) return NULL;
    if (text < 1 || input < 1 || result < 1) {
        PyErr_SetString(PyExc_ValueError, "windows must be positive");
        return NULL;
    }
    text_window = text, input_window = input, result_window = result;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fold", (PyCFunction)(void (*)(void))fold, METH_FASTCALL,
     "fold(line, meta, events, sidechains) -> 1 folded, 2 a skipped sidechain record, 0 not "
     "handled (nothing changed: read it in Python)."},
    {"fold_lines", (PyCFunction)(void (*)(void))fold_lines, METH_FASTCALL,
     "fold_lines(data, start, end, meta, events, sidechains) -> (next, line_start, line_end, "
     "sidechains_skipped): the lines of data[start:end] folded until one is not handled "
     "(line_start -1: all were)."},
    {"configure", configure, METH_VARARGS,
     "configure(text_window, input_window, result_window): the kept windows, in characters."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_claude_fast", "The Claude Code reader's hot path (see claude.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__claude_fast(void) {
    init_classes();
    PyObject **names[] = {&s_assistant, &s_call, &s_result, &s_interrupt,
                          &s_session_id, &s_cwd, &s_git_branch, &s_model};
    const char *texts[] = {"assistant", "call", "result", "interrupt",
                           "session_id", "cwd", "git_branch", "model"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(*texts); i++)
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) return NULL;
    PyObject *module = PyModule_Create(&module_def);
    if (module != NULL && PyModule_AddStringConstant(module, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
