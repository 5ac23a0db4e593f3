/* The JSON scanner of the compiled transcript folds (through `_fold.h`; every function is
 * static to its module): it validates a whole line as JSON and UTF-8 and records where the
 * values a fold wants are, walking only the containers whose contents matter. It refuses (returns
 * 0 for) what orjson might read otherwise: an escaped key where keys matter, a repeated wanted
 * key, a lone surrogate escape, a number orjson could refuse, nesting deeper than MAX_DEPTH.
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

#define MAX_DEPTH 64
#define MAX_NUMBER 40

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

#endif
