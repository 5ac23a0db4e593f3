/* What the compiled transcript folds share beyond the scanner (included by `_claude_fast.c`
 * and `_codex_fast.c`; every function is static to its module): values to Python, kept windows,
 * times, events, the line driver and the module set-up.
 *
 * A fold reads a line once, decodes only the values its reader's `feed` reads, and hands back
 * (returns 0 for) any line it is not sure to read exactly as orjson and `feed` would, having
 * changed nothing. The Python path stays the reference.
 */
#ifndef SKILLOPT_FOLD_H
#define SKILLOPT_FOLD_H
#include "_json_scan.h"

/* setup.py defines it as the SHA-256 of the module's source and the two headers, so the Python side
 * can tell a stale build from a current one (an editable install whose C source changed since it
 * was compiled). */
#ifndef SOURCE_DIGEST
#define SOURCE_DIGEST ""
#endif

#define MAX_WINDOW (1 << 20) /* so every window plus its offsets fits a Py_ssize_t */
/* Kept windows (characters): the kept length plus the redaction margin, from `_events`. */
static Py_ssize_t text_window = 2064, input_window = 464, result_window = 464;

static PyObject *s_assistant, *s_call, *s_result, *s_interrupt, *s_user;


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
