/* The JSON scanner and the event builders the compiled transcript folds share (included by
 * `_claude_fast.c` and `_codex_fast.c`; every function is static to its module).
 *
 * A fold reads a line once: it validates all of it as JSON and UTF-8, decodes only the values its
 * reader's `feed` reads, and hands back (returns 0 for) any line it is not sure to read exactly as
 * orjson and `feed` would: an escaped key, a lone surrogate escape, a number orjson could refuse,
 * nesting deeper than MAX_DEPTH. The Python path stays the reference.
 */
#ifndef SKILLOPT_JSON_SCAN_H
#define SKILLOPT_JSON_SCAN_H
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
/* The word-at-a-time string scan needs GCC's or Clang's bit builtins; other compilers (MSVC)
 * scan a byte at a time. */
#if defined(__GNUC__) || defined(__clang__)
#define HAVE_CTZ 1
#define MAYBE_UNUSED __attribute__((unused))
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#else
#define MAYBE_UNUSED
#endif

/* setup.py defines it as the SHA-256 of the module's source and this header, so the Python side
 * can tell a stale build from a current one (an editable install whose C source changed since it
 * was compiled). */
#ifndef SOURCE_DIGEST
#define SOURCE_DIGEST ""
#endif

#define MAX_DEPTH 64
#define MAX_NUMBER 40
#define MAX_WINDOW (1 << 20) /* so every window plus its offsets fits a Py_ssize_t */

/* Kept windows (characters): the kept length plus the redaction margin, from `_events`. */
static Py_ssize_t text_window = 2064, input_window = 464, result_window = 464;

static PyObject *s_assistant, *s_call, *s_result, *s_interrupt, *s_user;

enum { V_ABSENT = 0, V_STRING, V_TRUE, V_FALSE, V_NULL, V_NUMBER, V_OBJECT, V_ARRAY };

typedef struct {
    const char *start; /* a string's bytes between its quotes, else the value's first byte */
    const char *end;
    int kind;
    int escaped; /* a string holding a backslash escape */
} Val;

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
#if defined(HAVE_CTZ) && defined(__SSE2__)
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
#elif defined(HAVE_CTZ) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
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

/* A member's key and its colon. */
static int read_key(Cur *c, Val *key) {
    if (c->p >= c->end || *c->p != '"' || !read_string(c, key)) return 0;
    skip_ws(c);
    if (c->p >= c->end || *c->p != ':') return 0;
    c->p++;
    skip_ws(c);
    return 1;
}

/* The key of a member of an object whose keys matter: an escaped key could spell a wanted one,
 * so it is not handled. */
static int member_key(Cur *c, const char **key, Py_ssize_t *len) {
    Val k;
    if (!read_key(c, &k) || k.escaped) return 0;
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
        if (open == '{' && !read_key(c, &scratch)) return 0; /* no key matters here */
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

/* Walking a container whose contents matter: `member` reads the value of each member of an
 * object (after its key), `element` each element of an array; each returns 0 for "not
 * handled", which ends the walk. */
typedef int (*MemberFn)(void *ctx, Cur *c, const char *key, Py_ssize_t len);
typedef int (*ElementFn)(void *ctx, Cur *c);

static int walk_object(Cur *c, void *ctx, MemberFn member) {
    int empty, more = 1;
    if (!open_container(c, '{', '}', &empty)) return 0;
    while (!empty && more) {
        const char *key;
        Py_ssize_t len;
        if (!member_key(c, &key, &len) || !member(ctx, c, key, len) ||
            !next_member(c, '}', &more))
            return 0;
    }
    return 1;
}

static int walk_array(Cur *c, void *ctx, ElementFn element) {
    int empty, more = 1;
    if (!open_container(c, '[', ']', &empty)) return 0;
    while (!empty && more)
        if (!element(ctx, c) || !next_member(c, ']', &more)) return 0;
    return 1;
}

/* A wanted member's value, once: an object walked by `member` or an array by `element` when
 * one is given (the slot records where it was), anything else validated and recorded. */
static int read_into(Cur *c, Val *slot, void *ctx, MemberFn member, ElementFn element) {
    if (slot->kind != V_ABSENT) return 0; /* a repeated key: orjson keeps the last */
    int object = member != NULL && is_container(c, '{');
    if (!object && !(element != NULL && is_container(c, '['))) return read_value(c, slot);
    slot->start = (const char *)c->p;
    slot->kind = object ? V_OBJECT : V_ARRAY;
    if (!(object ? walk_object(c, ctx, member) : walk_array(c, ctx, element))) return 0;
    slot->end = (const char *)c->p;
    return 1;
}

static int skip_member(Cur *c) {
    Val scratch;
    return read_value(c, &scratch);
}

/* The `{"type": ..., "text": ...}` parts of a content list (up to `limit` of them). */
typedef struct {
    Val *type, *text;
    int *count, limit;
} Parts;

static int part_member(void *ctx, Cur *c, const char *key, Py_ssize_t len) {
    Parts *parts = ctx;
    int at = *parts->count - 1;
    if (KEY_IS("type")) return read_once(c, &parts->type[at]);
    if (KEY_IS("text")) return read_once(c, &parts->text[at]);
    return skip_member(c);
}

static int part_element(void *ctx, Cur *c) {
    Parts *parts = ctx;
    if (!is_container(c, '{')) return skip_member(c);
    if (*parts->count >= parts->limit) return 0;
    parts->type[*parts->count].kind = parts->text[*parts->count].kind = V_ABSENT;
    (*parts->count)++;
    return walk_object(c, parts, part_member);
}

/* ---- values to Python ------------------------------------------------------------------- */

static int is_raw(const Val *v, const char *word) {
    size_t n = strlen(word);
    return v->kind == V_STRING && !v->escaped && (size_t)(v->end - v->start) == n &&
           memcmp(v->start, word, n) == 0;
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
    /* unescaped text is never longer than its JSON, and `cap` characters take at most 4 bytes
     * each */
    size_t room = (size_t)(end - p);
    if (cap > 0 && (size_t)cap < room / 4) room = (size_t)cap * 4;
    char *buffer = PyMem_Malloc(room + 1);
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

/* ---- shared event builders ----------------------------------------------------------- */

/* `value or ...`: 1 truthy, 0 falsy, -1 a kind whose truth only Python should judge. */
static int truthy_text(const Val *v) {
    if (v->kind == V_ABSENT || v->kind == V_NULL || v->kind == V_FALSE) return 0;
    if (v->kind == V_STRING) return v->start != v->end;
    return -1;
}

/* `str(a or b or "")` for optional text fields; NULL with no exception: not handled. */
static PyObject *first_text(const Val *a, const Val *b, Py_ssize_t cap) {
    int ta = truthy_text(a), tb = b ? truthy_text(b) : 0;
    if (ta < 0 || (ta == 0 && tb < 0)) return NULL;
    if (ta) return decode(a, cap);
    if (tb) return decode(b, cap);
    return PyUnicode_New(0, 0);
}

static PyObject *new_event_v(Py_ssize_t size, va_list args) {
    PyObject *item = PyList_New(size);
    if (item == NULL) return NULL;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *value = va_arg(args, PyObject *);
        Py_INCREF(value);
        PyList_SET_ITEM(item, i, value);
    }
    return item;
}

/* An event: a list of `size` values (each borrowed, referenced by the list). */
MAYBE_UNUSED static PyObject *new_event(Py_ssize_t size, ...) {
    va_list args;
    va_start(args, size);
    PyObject *item = new_event_v(size, args);
    va_end(args);
    return item;
}

/* An event appended to `events`: 0, or -1 with an exception. */
static int event(PyObject *events, Py_ssize_t size, ...) {
    va_list args;
    va_start(args, size);
    PyObject *item = new_event_v(size, args);
    va_end(args);
    if (item == NULL) return -1;
    int failed = PyList_Append(events, item);
    Py_DECREF(item);
    return failed;
}

/* ---- the line driver -------------------------------------------------------------------- */

/* A module's fold of one line (`p` to `end`, no newline): 1 folded, 2 a sidechain record
 * skipped, 0 not handled (nothing changed), -1 an exception. */
typedef int (*FoldOne)(void *ctx, const unsigned char *p, const unsigned char *end);

/* The lines of `data[start:end]` folded in order until one is not handled: (where to go on,
 * that line's start and end or -1 and -1 when every line was folded, sidechain records
 * skipped). Empty lines are passed over. */
static PyObject *fold_run(PyObject *data, PyObject *start_arg, PyObject *end_arg, FoldOne fold,
                          void *ctx) {
    if (!PyBytes_Check(data)) {
        PyErr_SetString(PyExc_TypeError, "fold_lines: data must be bytes");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(start_arg), end = PyLong_AsSsize_t(end_arg);
    if ((start == -1 || end == -1) && PyErr_Occurred()) return NULL;
    if (start < 0 || end > PyBytes_GET_SIZE(data) || start > end) {
        PyErr_SetString(PyExc_ValueError, "fold_lines: start and end must lie within data");
        return NULL;
    }
    const unsigned char *base = (const unsigned char *)PyBytes_AS_STRING(data);
    Py_ssize_t at = start, line_start = -1, line_end = -1, skipped = 0;
    while (at < end) {
        const unsigned char *newline = memchr(base + at, '\n', (size_t)(end - at));
        Py_ssize_t stop = newline ? newline - base : end;
        if (stop > at) {
            int handled = fold(ctx, base + at, base + stop);
            if (handled < 0) return NULL;
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
    return Py_BuildValue("(nnnn)", at, line_start, line_end, skipped);
}

static PyObject *configure(PyObject *module, PyObject *args) {
    (void)module;
    Py_ssize_t text, input, result;
    if (!PyArg_ParseTuple(args, "nnn", &text, &input, &result)) return NULL;
    if (text < 1 || input < 1 || result < 1 || text > MAX_WINDOW || input > MAX_WINDOW ||
        result > MAX_WINDOW) {
        PyErr_SetString(PyExc_ValueError, "windows must be from 1 to 1048576 characters");
        return NULL;
    }
    text_window = text, input_window = input, result_window = result;
    Py_RETURN_NONE;
}

#define CONFIGURE_METHOD                                                                         \
    {"configure", configure, METH_VARARGS,                                                       \
     "configure(text_window, input_window, result_window): the kept windows, in characters."}

/* `names[i]` set to the interned `texts[i]`, for the `count` of them: 0, or -1 with an
 * exception. */
static int intern_all(PyObject **const names[], const char *const texts[], size_t count) {
    for (size_t i = 0; i < count; i++)
        if ((*names[i] = PyUnicode_InternFromString(texts[i])) == NULL) return -1;
    return 0;
}

/* Module set-up: the byte classes, the event kinds, the module's own `names`, and the build's
 * source digest. */
static PyObject *create_module(struct PyModuleDef *def, PyObject **const names[],
                               const char *const texts[], size_t count) {
    static PyObject **const kinds[] = {&s_assistant, &s_call, &s_result, &s_interrupt, &s_user};
    static const char *const kind_texts[] = {"assistant", "call", "result", "interrupt", "user"};
    init_classes();
    if (intern_all(kinds, kind_texts, 5) < 0 || intern_all(names, texts, count) < 0) return NULL;
    PyObject *module = PyModule_Create(def);
    if (module != NULL && PyModule_AddStringConstant(module, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}

#endif
