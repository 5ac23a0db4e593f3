/* The redactor's two text-wide scans in C (see `_redaction_scan.py`, which stays the reference
 * and the fallback).
 *
 * `scan_hits(text)`: SCAN_GATE's matches, as `SCAN_GATE.finditer` finds them, their
 * neighbourhoods merged and NUL-joined, to the character. The gate is a union of literals, each
 * keyed on one of its characters (its pivot) with a lookbehind for the characters before it:
 * a match starts at the pivot, where the literal's characters before it precede and the rest
 * follow, and ends after the literal; at one position the alternatives are tried in the gate's
 * order, and the scan goes on from the end of a match (matches never overlap; a lookbehind may
 * reach before it).
 *
 * `gate_mask(low, skip)`: which of the gate words (bit i: word i) occur in `low`, those with a
 * bit in `skip` not searched.
 *
 * Neither list of literals lives here: `configure` receives them from Python at import, so a
 * rule change cannot leave this module behind. Strings of every kind (1, 2 and 4 bytes a
 * character) are read in place. One-byte strings (nearly every transcript) are scanned 16
 * characters at a time on x86-64 processors with SSSE3 (asked at run time), a character at a
 * time elsewhere: `configure(..., vector=False)` or the `REDACTION_FAST_SCALAR` define choose
 * that, for the tests.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#if (defined(__x86_64__) || defined(_M_X64)) && !defined(REDACTION_FAST_SCALAR) && \
    (defined(__GNUC__) || defined(__clang__) || defined(_MSC_VER))
#include <emmintrin.h> /* SSE2: every x86-64 */
#include <tmmintrin.h> /* SSSE3: most, asked at run time */
#define USE_X86 1
#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#define TARGET_SSSE3
static int has_ssse3(void) {
    int info[4];
    __cpuid(info, 1);
    return info[2] >> 9 & 1;
}
static int lowest_bit(unsigned mask) {
    unsigned long at;
    _BitScanForward(&at, mask);
    return (int)at;
}
#else
#define TARGET_SSSE3 __attribute__((target("ssse3")))
#define has_ssse3() __builtin_cpu_supports("ssse3")
#define lowest_bit(mask) __builtin_ctz(mask)
#endif
#endif

/* setup.py defines it as the SHA-256 of this file, so the Python side can tell a stale build. */
#ifndef SOURCE_DIGEST
#define SOURCE_DIGEST ""
#endif

#define MAX_LITERALS 255
#define MAX_WORDS 62         /* a mask's bits (a signed 64-bit int) */
#define MAX_LENGTH 255       /* a literal's or a word's characters */
#define MAX_MARGIN (1 << 20) /* so a position plus the margin fits a Py_ssize_t */
#define POOL (1 << 14)       /* every literal's and word's characters */
#define WORD_PREFIX 4        /* the characters a word's candidate starts are found by */
#define MEMCHR_MISSES 4      /* a word's pivot found where the word is not, before the pairs */

typedef struct {
    const unsigned char *chars;
    Py_ssize_t len, pivot, second; /* second: another character a word is searched by */
} Word;

typedef struct {
    Word literal[MAX_LITERALS];
    int n_literals;
    unsigned char is_pivot[256];    /* an (ASCII) character that keys a literal */
    unsigned short first[257];      /* by_pivot[first[c]:first[c + 1]]: the literals keyed on c */
    unsigned char by_pivot[MAX_LITERALS];
    /* A pivot character's neighbour on one `side` (1: the next, -1: the one before, 0: none)
     * when each of its literals has one there, and the characters they have there (bits). */
    signed char side[256];
    unsigned char beside[256][32];
    /* Nibble tables (pshufb) of three classes of characters, bit h for the pivots 16 h to
     * 16 h + 15 (ASCII: h < 8): a class holds x when [0][x & 15] & [1][x >> 4] has bit h.
     * The pivots, exactly; and (a superset of) the characters that can stand after, and before,
     * one of these pivots in a literal (any, after, for a pivot that needs neither). */
    unsigned char pivot_class[2][16], after_class[2][16], before_class[2][16];
    int vector;                    /* SIMD wanted (`configure`) and there */
    Py_ssize_t margin;
    Word word[MAX_WORDS];
    int n_words;
    /* By groups of 8 words (bit j: the group's word j), the classes of their characters at
     * each of their first WORD_PREFIX (any character past a word's end). */
    unsigned char word_class[(MAX_WORDS + 7) / 8][WORD_PREFIX][2][16];
    unsigned char pool[POOL];
} Config;

static Config *config = NULL; /* NULL until `configure` */

/* ---- the scans, one copy per character width ------------------------------------------- */

#define DEFINE_SCANS(K, CHAR)                                                                  \
    static int equal_##K(const CHAR *s, const unsigned char *w, Py_ssize_t n) {                \
        for (Py_ssize_t j = 0; j < n; j++)                                                     \
            if (s[j] != (CHAR)w[j]) return 0;                                                  \
        return 1;                                                                              \
    }                                                                                          \
                                                                                               \
    /* Whether a gate match starts at `i` (a pivot character); its end in `*end`. */           \
    static int match_at_##K(const Config *c, const CHAR *s, Py_ssize_t n, Py_ssize_t i,        \
                            Py_ssize_t *end) {                                                 \
        unsigned ch = s[i];                                                                    \
        if (c->side[ch]) { /* most candidates fail here */                                     \
            Py_ssize_t j = i + c->side[ch];                                                    \
            if (j < 0 || j >= n || s[j] > 255 || !(c->beside[ch][s[j] >> 3] >> (s[j] & 7) & 1)) \
                return 0;                                                                      \
        }                                                                                      \
        for (int k = c->first[ch]; k < c->first[ch + 1]; k++) {                                \
            const Word *w = &c->literal[c->by_pivot[k]];                                       \
            Py_ssize_t start = i - w->pivot;                                                   \
            if (start >= 0 && w->len <= n - start && equal_##K(s + start, w->chars, w->len)) { \
                *end = start + w->len;                                                         \
                return 1;                                                                      \
            }                                                                                  \
        }                                                                                      \
        return 0;                                                                              \
    }                                                                                          \
                                                                                               \
    /* The next gate match from `i`: its start, its end in `*end`; -1 for none. */             \
    static Py_ssize_t next_match_##K(const Config *c, const CHAR *s, Py_ssize_t n,             \
                                     Py_ssize_t i, Py_ssize_t *end) {                          \
        for (; i < n; i++)                                                                     \
            if (s[i] < 256 && c->is_pivot[s[i]] && match_at_##K(c, s, n, i, end)) return i;    \
        return -1;                                                                             \
    }                                                                                          \
                                                                                               \
    /* Whether word `w` occurs in `s`, looked for where its two characters are. */             \
    static int contains_##K(const Word *w, const CHAR *s, Py_ssize_t n, Py_ssize_t st) {       \
        CHAR ca = w->chars[w->pivot], cb = w->chars[w->second];                                \
        for (Py_ssize_t last = n - w->len; st <= last; st++)                                   \
            if (s[st + w->pivot] == ca && s[st + w->second] == cb &&                           \
                equal_##K(s + st, w->chars, w->len))                                           \
                return 1;                                                                      \
        return 0;                                                                              \
    }

DEFINE_SCANS(1, Py_UCS1)
DEFINE_SCANS(2, Py_UCS2)
DEFINE_SCANS(4, Py_UCS4)

#ifdef USE_X86
/* The classes (bits) of the 16 characters at `p` in `table`'s classes. */
TARGET_SSSE3 static __m128i classes(const unsigned char table[2][16], const Py_UCS1 *p) {
    const __m128i nibble = _mm_set1_epi8(0x0f);
    __m128i x = _mm_loadu_si128((const __m128i *)p);
    __m128i lows = _mm_loadu_si128((const __m128i *)table[0]);
    __m128i highs = _mm_loadu_si128((const __m128i *)table[1]);
    __m128i low = _mm_shuffle_epi8(lows, _mm_and_si128(x, nibble));
    __m128i high = _mm_shuffle_epi8(highs, _mm_and_si128(_mm_srli_epi16(x, 4), nibble));
    return _mm_and_si128(low, high);
}

/* `next_match_1` 16 characters at a time (pshufb: SSSE3), a candidate being a pivot with a
 * character after it, or before it, that one of its class's literals has there: few false
 * candidates, so few mispredicted branches. */
TARGET_SSSE3 static Py_ssize_t next_match_ssse3(const Config *c, const Py_UCS1 *s, Py_ssize_t n,
                                                Py_ssize_t i, Py_ssize_t *end) {
    if (i == 0 && n > 0) { /* no character before the first */
        if (c->is_pivot[s[0]] && match_at_1(c, s, n, 0, end)) return 0;
        i = 1;
    }
    const __m128i zero = _mm_setzero_si128();
    for (; i <= n - 17; i += 16) {
        __m128i near = _mm_or_si128(classes(c->after_class, s + i + 1),
                                    classes(c->before_class, s + i - 1));
        __m128i hit = _mm_and_si128(classes(c->pivot_class, s + i), near);
        unsigned mask = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(hit, zero)) & 0xffff;
        for (; mask; mask &= mask - 1)
            if (match_at_1(c, s, n, i + lowest_bit(mask), end)) return i + lowest_bit(mask);
    }
    return next_match_1(c, s, n, i, end);
}
#endif

/* Whether word `w` occurs in the one-byte `s`: from its pivot with memchr while that finds
 * few false candidates, then where its two characters are. */
static int contains_bytes(const Word *w, const Py_UCS1 *s, Py_ssize_t n) {
    Py_ssize_t len = w->len, a = w->pivot, last = n - len, st = 0; /* last: the last start */
    unsigned char ca = w->chars[a];
    for (int misses = 0; st <= last && misses < MEMCHR_MISSES; misses++) {
        const Py_UCS1 *p = memchr(s + st + a, ca, (size_t)(last - st + 1));
        if (p == NULL) return 0;
        st = p - s - a;
        if (memcmp(s + st, w->chars, (size_t)len) == 0) return 1;
        st++;
    }
    return contains_1(w, s, n, st);
}

#ifdef USE_X86
/* The words of `group` (bit j: word 8 group + j) in `want` that occur in the one-byte `s`, all
 * looked for at once, 16 starts at a time (pshufb: SSSE3): a start is a candidate for the words
 * whose first four characters are there (`word_class`). */
TARGET_SSSE3 static unsigned words_in_ssse3(const Config *c, int group, unsigned want,
                                            const Py_UCS1 *s, Py_ssize_t n) {
    const unsigned char(*table)[2][16] = c->word_class[group];
    const Word *words = &c->word[8 * group];
    const __m128i zero = _mm_setzero_si128();
    unsigned found = 0;
    Py_ssize_t st = 0;
    for (; want && st <= n - (WORD_PREFIX - 1 + 16); st += 16) {
        __m128i hit = _mm_set1_epi8((char)want);
        for (int k = 0; k < WORD_PREFIX; k++)
            hit = _mm_and_si128(hit, classes(table[k], s + st + k));
        unsigned mask = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(hit, zero)) & 0xffff;
        if (!mask) continue;
        unsigned char bits[16];
        _mm_storeu_si128((__m128i *)bits, hit);
        for (; mask; mask &= mask - 1) {
            Py_ssize_t at = st + lowest_bit(mask);
            for (unsigned b = bits[lowest_bit(mask)] & want; b; b &= b - 1) {
                const Word *w = &words[lowest_bit(b)];
                if (w->len <= n - at && memcmp(s + at, w->chars, (size_t)w->len) == 0) {
                    found |= b & (0u - b);
                    want &= ~(b & (0u - b));
                }
            }
        }
    }
    for (unsigned b = want; b; b &= b - 1) /* the starts left, one word at a time */
        if (contains_1(&words[lowest_bit(b)], s, n, st)) found |= b & (0u - b);
    return found;
}
#endif

/* ---- scan_hits ------------------------------------------------------------------------- */

typedef struct {
    Py_ssize_t (*span)[2];
    Py_ssize_t count, room;
    Py_ssize_t local[32][2];
} Spans;

static int push(Spans *spans, Py_ssize_t lo, Py_ssize_t hi) {
    if (spans->count == spans->room) {
        Py_ssize_t room = spans->room * 2;
        Py_ssize_t(*grown)[2] = PyMem_Malloc((size_t)room * sizeof *grown);
        if (grown == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        memcpy(grown, spans->span, (size_t)spans->count * sizeof *grown);
        if (spans->span != spans->local) PyMem_Free(spans->span);
        spans->span = grown;
        spans->room = room;
    }
    spans->span[spans->count][0] = lo;
    spans->span[spans->count][1] = hi;
    spans->count++;
    return 0;
}

/* The spans' characters NUL-joined, as the narrowest string that holds them (as `str.join`). */
static PyObject *joined(PyObject *text, const Spans *spans) {
    if (spans->count == 0) return PyUnicode_New(0, 0);
    if (spans->count == 1) return PyUnicode_Substring(text, spans->span[0][0], spans->span[0][1]);
    size_t kind = (size_t)PyUnicode_KIND(text);
    const char *data = PyUnicode_DATA(text);
    Py_ssize_t total = spans->count - 1;
    for (Py_ssize_t k = 0; k < spans->count; k++) total += spans->span[k][1] - spans->span[k][0];
    PyObject *ascii = NULL; /* an ASCII text's result is written in place */
    char *out;
    if (PyUnicode_IS_ASCII(text)) {
        if ((ascii = PyUnicode_New(total, 127)) == NULL) return NULL;
        out = (char *)PyUnicode_1BYTE_DATA(ascii);
    } else if ((out = PyMem_Malloc((size_t)total * kind)) == NULL) {
        return PyErr_NoMemory();
    }
    char *at = out;
    for (Py_ssize_t k = 0; k < spans->count; k++) {
        if (k) {
            memset(at, 0, kind);
            at += kind;
        }
        size_t bytes = (size_t)(spans->span[k][1] - spans->span[k][0]) * kind;
        memcpy(at, data + (size_t)spans->span[k][0] * kind, bytes);
        at += bytes;
    }
    if (ascii) return ascii;
    PyObject *result = PyUnicode_FromKindAndData((int)kind, out, total);
    PyMem_Free(out);
    return result;
}

static int ready(PyObject *text, const char *name) {
    if (!PyUnicode_Check(text)) {
        PyErr_Format(PyExc_TypeError, "%s() argument must be str, not %.100s", name,
                     Py_TYPE(text)->tp_name);
        return 0;
    }
    if (config == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "_redaction_fast is not configured");
        return 0;
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) return 0;
#endif
    return 1;
}

static PyObject *scan_hits(PyObject *module, PyObject *text) {
    (void)module;
    if (!ready(text, "scan_hits")) return NULL;
    const Config *c = config;
    Py_ssize_t n = PyUnicode_GET_LENGTH(text), margin = c->margin;
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    Spans spans = {NULL, 0, 32, {{0, 0}}};
    spans.span = spans.local;
    Py_ssize_t lo = -1, hi = -1, pos = 0, end = 0, at;
    for (;;) {
#ifdef USE_X86
        if (kind == PyUnicode_1BYTE_KIND && c->vector)
            at = next_match_ssse3(c, data, n, pos, &end);
        else
#endif
        if (kind == PyUnicode_1BYTE_KIND) at = next_match_1(c, data, n, pos, &end);
        else if (kind == PyUnicode_2BYTE_KIND) at = next_match_2(c, data, n, pos, &end);
        else at = next_match_4(c, data, n, pos, &end);
        if (at < 0) break;
        Py_ssize_t start = at - margin;
        if (hi >= 0 && start <= hi) {
            hi = end + margin;
        } else {
            if (hi >= 0 && push(&spans, lo, hi < n ? hi : n) < 0) goto fail;
            lo = start > 0 ? start : 0;
            hi = end + margin;
        }
        pos = end;
    }
    if (hi >= 0 && push(&spans, lo, hi < n ? hi : n) < 0) goto fail;
    PyObject *result = joined(text, &spans);
    if (spans.span != spans.local) PyMem_Free(spans.span);
    return result;
fail:
    if (spans.span != spans.local) PyMem_Free(spans.span);
    return NULL;
}

/* ---- gate_mask ------------------------------------------------------------------------- */

static PyObject *gate_mask(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "gate_mask(low: str, skip: int)");
        return NULL;
    }
    if (!ready(args[0], "gate_mask")) return NULL;
    long long skip = PyLong_AsLongLong(args[1]);
    if (skip == -1 && PyErr_Occurred()) return NULL;
    const Config *c = config;
    Py_ssize_t n = PyUnicode_GET_LENGTH(args[0]);
    int kind = PyUnicode_KIND(args[0]);
    const void *data = PyUnicode_DATA(args[0]);
    long long found = 0;
#ifdef USE_X86
    if (kind == PyUnicode_1BYTE_KIND && c->vector) {
        for (int group = 0; 8 * group < c->n_words; group++) {
            int words = c->n_words - 8 * group < 8 ? c->n_words - 8 * group : 8;
            unsigned want = (unsigned)(~skip >> 8 * group) & ((1u << words) - 1);
            if (want) found |= (long long)words_in_ssse3(c, group, want, data, n) << 8 * group;
        }
        return PyLong_FromLongLong(found & ((1LL << c->n_words) - 1));
    }
#endif
    for (int k = 0; k < c->n_words; k++) {
        const Word *w = &c->word[k];
        if (skip >> k & 1 || w->len > n) continue;
        int in = kind == PyUnicode_1BYTE_KIND   ? contains_bytes(w, data, n)
                 : kind == PyUnicode_2BYTE_KIND ? contains_2(w, data, n, 0)
                                                : contains_4(w, data, n, 0);
        if (in) found |= 1LL << k;
    }
    return PyLong_FromLongLong(found);
}

/* ---- configure ------------------------------------------------------------------------- */

/* `items` (a sequence of (str, pivot, second)) read into `words`, their characters into the
 * pool from `*used`: the count, or -1 with an exception. */
static int read_words(PyObject *items, Word *words, int most, Config *c, size_t *used,
                      const char *what) {
    PyObject *seq = PySequence_Fast(items, "configure: a sequence of (str, int, int)");
    if (seq == NULL) return -1;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count > most) {
        PyErr_Format(PyExc_ValueError, "configure: more than %d %s", most, what);
        Py_DECREF(seq);
        return -1;
    }
    for (Py_ssize_t k = 0; k < count; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, k), *text;
        Py_ssize_t pivot, second;
        if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "Unn", &text, &pivot, &second)) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "configure: each of the %s is a tuple", what);
            Py_DECREF(seq);
            return -1;
        }
        Py_ssize_t len = PyUnicode_GET_LENGTH(text);
        if (!PyUnicode_IS_ASCII(text) || len == 0 || len > MAX_LENGTH || pivot < 0 ||
            pivot >= len || second < 0 || second >= len || *used + (size_t)len > POOL) {
            PyErr_Format(PyExc_ValueError,
                         "configure: %R is not an ASCII text of 1 to %d characters holding "
                         "positions %zd and %zd (or the %s are too long together)",
                         text, MAX_LENGTH, pivot, second, what);
            Py_DECREF(seq);
            return -1;
        }
        memcpy(c->pool + *used, PyUnicode_1BYTE_DATA(text), (size_t)len);
        words[k].chars = c->pool + *used;
        words[k].len = len;
        words[k].pivot = pivot;
        words[k].second = second;
        *used += (size_t)len;
    }
    Py_DECREF(seq);
    return (int)count;
}

static void add_class(unsigned char table[2][16], unsigned char bit, int x) {
    table[0][x & 15] |= bit;
    table[1][x >> 4] |= bit;
}

/* The literals keyed on each character, in the given order; their neighbour on the side where
 * fewer characters stand; the pivots' nibbles. */
static void index_literals(Config *c) {
    int k = 0;
    for (int ch = 0; ch < 256; ch++) {
        c->first[ch] = (unsigned short)k;
        unsigned char sets[2][32] = {{0}}; /* the characters after, before */
        int has[2] = {1, 1}, count[2] = {0, 0};
        for (int i = 0; i < c->n_literals; i++) {
            const Word *w = &c->literal[i];
            if (w->chars[w->pivot] != ch) continue;
            c->by_pivot[k++] = (unsigned char)i;
            for (int side = 0; side < 2; side++) {
                Py_ssize_t j = side ? w->pivot - 1 : w->pivot + 1;
                if (j < 0 || j >= w->len) {
                    has[side] = 0;
                    continue;
                }
                unsigned char at = w->chars[j];
                count[side] += !(sets[side][at >> 3] >> (at & 7) & 1);
                sets[side][at >> 3] |= (unsigned char)(1 << (at & 7));
            }
        }
        c->is_pivot[ch] = k > c->first[ch];
        if (!c->is_pivot[ch]) continue;
        unsigned char bit = (unsigned char)(1 << (ch >> 4)); /* ASCII: ch >> 4 < 8 */
        add_class(c->pivot_class, bit, ch);
        int side = has[0] && (!has[1] || count[0] <= count[1]) ? 0 : has[1] ? 1 : -1;
        if (side < 0) { /* any character after it, or none (the tail is scanned alone) */
            memset(c->after_class, bit, sizeof c->after_class);
            continue;
        }
        c->side[ch] = (signed char)(side ? -1 : 1);
        memcpy(c->beside[ch], sets[side], 32);
        for (int x = 0; x < 128; x++)
            if (sets[side][x >> 3] >> (x & 7) & 1)
                add_class(side ? c->before_class : c->after_class, bit, x);
    }
    c->first[256] = (unsigned short)k;
}

/* configure(literals, margin, words, vector): see the method's doc. */
static PyObject *configure(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *literals, *words;
    Py_ssize_t margin;
    int vector = 1;
    if (!PyArg_ParseTuple(args, "OnO|p:configure", &literals, &margin, &words, &vector))
        return NULL;
    if (margin < 0 || margin > MAX_MARGIN) {
        PyErr_Format(PyExc_ValueError, "configure: margin %zd out of 0..%d", margin, MAX_MARGIN);
        return NULL;
    }
    Config *c = PyMem_Calloc(1, sizeof *c);
    if (c == NULL) return PyErr_NoMemory();
    size_t used = 0;
    c->margin = margin;
    c->n_literals = read_words(literals, c->literal, MAX_LITERALS, c, &used, "literals");
    c->n_words = c->n_literals < 0 ? -1 : read_words(words, c->word, MAX_WORDS, c, &used, "words");
    if (c->n_words < 0) {
        PyMem_Free(c);
        return NULL;
    }
    index_literals(c);
    for (int k = 0; k < c->n_words; k++)
        for (int j = 0; j < WORD_PREFIX; j++) {
            unsigned char(*table)[16] = c->word_class[k / 8][j], bit = (unsigned char)(1 << k % 8);
            if (j < c->word[k].len) {
                add_class(table, bit, c->word[k].chars[j]);
                continue;
            }
            for (int x = 0; x < 16; x++) {
                table[0][x] |= bit;
                table[1][x] |= bit;
            }
        }
#ifdef USE_X86
    c->vector = vector && has_ssse3();
#else
    c->vector = 0;
#endif
    PyMem_Free(config);
    config = c;
    Py_RETURN_NONE;
}

/* vector(): whether the scans run 16 characters at a time (SIMD). */
static PyObject *vector(PyObject *module, PyObject *unused) {
    (void)module;
    (void)unused;
    return PyBool_FromLong(config != NULL && config->vector);
}

static PyMethodDef methods[] = {
    {"configure", configure, METH_VARARGS,
     "configure(literals, margin, words, vector=True): the gate's literals as (literal, pivot, "
     "pivot) in the gate's order, the neighbourhood margin, the gate words as (word, pivot, "
     "second), searched where both characters are, and whether to scan 16 characters at a "
     "time where the processor can."},
    {"vector", vector, METH_NOARGS, "vector() -> bool: whether the scans use SIMD."},
    {"scan_hits", scan_hits, METH_O,
     "scan_hits(text) -> str: the neighbourhoods of the gate's matches, NUL-joined."},
    {"gate_mask", (PyCFunction)(void (*)(void))gate_mask, METH_FASTCALL,
     "gate_mask(low, skip) -> int: bit i set when word i (its bit not in skip) is in low."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_redaction_fast", "The redactor's scans (see _redaction_scan.py).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__redaction_fast(void) {
    PyObject *module = PyModule_Create(&module_def);
    if (module != NULL && PyModule_AddStringConstant(module, "SOURCE_DIGEST", SOURCE_DIGEST) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
