/* A small JSON reader and writer for the C worker (worker.c). It exists so the 32-bit worker
 * needs nothing beyond a C compiler, the 32-bit C library (gcc-multilib) and the variant's own
 * libcrypto: a Debian -dev JSON library would have to be installed for i386 as well (multiarch),
 * and the protocol's JSON is simple (one object per line, the largest the ~75 KB `vectors`
 * request). The reader builds a tree of every value; the writer appends to a growable buffer
 * and escapes strings. Both are only as general as the worker protocol needs. */
#ifndef CRYPTOSPEED_JSON_H
#define CRYPTOSPEED_JSON_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum jtype { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };

typedef struct jval {
    enum jtype type;
    int boolean;
    double num;
    unsigned long long u; /* the number as an unsigned integer, when it is one */
    char *str;            /* J_STR (NUL-terminated; the protocol's strings hold no NUL) */
    size_t n;             /* items of J_ARR / members of J_OBJ */
    struct jval **items;
    char **keys; /* J_OBJ */
} jval;

static void *xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fputs("cryptospeed C worker: out of memory\n", stderr);
        exit(70);
    }
    return q;
}

static void jfree(jval *v) {
    size_t i;
    if (!v) return;
    for (i = 0; i < v->n; i++) {
        jfree(v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

struct jparser {
    const char *p;
    const char *err;
};

static void jskip(struct jparser *s) {
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r') s->p++;
}

static void jput_utf8(char **out, size_t *len, size_t *cap, unsigned cp) {
    char b[4];
    int k = 0, i;
    if (cp < 0x80) b[k++] = (char)cp;
    else if (cp < 0x800) {
        b[k++] = (char)(0xC0 | (cp >> 6));
        b[k++] = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        b[k++] = (char)(0xE0 | (cp >> 12));
        b[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[k++] = (char)(0x80 | (cp & 0x3F));
    } else {
        b[k++] = (char)(0xF0 | (cp >> 18));
        b[k++] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[k++] = (char)(0x80 | (cp & 0x3F));
    }
    for (i = 0; i < k; i++) {
        if (*len + 2 > *cap) {
            *cap = *cap * 2 + 16;
            *out = xrealloc(*out, *cap);
        }
        (*out)[(*len)++] = b[i];
    }
}

static int jhex4(const char *p, unsigned *v) {
    int i;
    *v = 0;
    for (i = 0; i < 4; i++) {
        char c = p[i];
        *v <<= 4;
        if (c >= '0' && c <= '9') *v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') *v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') *v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    return 1;
}

static char *jstring(struct jparser *s) {
    size_t len = 0, cap = 16;
    char *out = xrealloc(NULL, cap);
    s->p++; /* the opening quote */
    for (;;) {
        char c = *s->p;
        if (c == '\0') {
            s->err = "unterminated string";
            free(out);
            return NULL;
        }
        s->p++;
        if (c == '"') break;
        if (c == '\\') {
            char e = *s->p++;
            unsigned cp;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '/': c = '/'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'n': c = '\n'; break;
            case 'r': c = '\r'; break;
            case 't': c = '\t'; break;
            case 'u':
                if (!jhex4(s->p, &cp)) {
                    s->err = "bad \\u escape";
                    free(out);
                    return NULL;
                }
                s->p += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && s->p[0] == '\\' && s->p[1] == 'u') {
                    unsigned lo;
                    if (jhex4(s->p + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        s->p += 6;
                    }
                }
                jput_utf8(&out, &len, &cap, cp);
                continue;
            default:
                s->err = "bad escape";
                free(out);
                return NULL;
            }
        }
        if (len + 2 > cap) {
            cap *= 2;
            out = xrealloc(out, cap);
        }
        out[len++] = c;
    }
    out[len] = '\0';
    return out;
}

static jval *jvalue(struct jparser *s, int depth);

static jval *jnew(enum jtype t) {
    jval *v = xrealloc(NULL, sizeof *v);
    memset(v, 0, sizeof *v);
    v->type = t;
    return v;
}

static jval *jcontainer(struct jparser *s, int depth, int object) {
    jval *v = jnew(object ? J_OBJ : J_ARR);
    char close = object ? '}' : ']';
    s->p++;
    jskip(s);
    if (*s->p == close) {
        s->p++;
        return v;
    }
    for (;;) {
        char *key = NULL;
        jval *item;
        jskip(s);
        if (object) {
            if (*s->p != '"') {
                s->err = "expected a member name";
                jfree(v);
                return NULL;
            }
            key = jstring(s);
            if (!key) {
                jfree(v);
                return NULL;
            }
            jskip(s);
            if (*s->p != ':') {
                s->err = "expected ':'";
                free(key);
                jfree(v);
                return NULL;
            }
            s->p++;
        }
        item = jvalue(s, depth + 1);
        if (!item) {
            free(key);
            jfree(v);
            return NULL;
        }
        v->items = xrealloc(v->items, (v->n + 1) * sizeof *v->items);
        if (object) v->keys = xrealloc(v->keys, (v->n + 1) * sizeof *v->keys);
        v->items[v->n] = item;
        if (object) v->keys[v->n] = key;
        v->n++;
        jskip(s);
        if (*s->p == ',') {
            s->p++;
            continue;
        }
        if (*s->p == close) {
            s->p++;
            return v;
        }
        s->err = object ? "expected ',' or '}'" : "expected ',' or ']'";
        jfree(v);
        return NULL;
    }
}

static jval *jvalue(struct jparser *s, int depth) {
    jval *v;
    if (depth > 64) {
        s->err = "nested too deeply";
        return NULL;
    }
    jskip(s);
    switch (*s->p) {
    case '{': return jcontainer(s, depth, 1);
    case '[': return jcontainer(s, depth, 0);
    case '"': {
        char *str = jstring(s);
        if (!str) return NULL;
        v = jnew(J_STR);
        v->str = str;
        return v;
    }
    case 't':
        if (strncmp(s->p, "true", 4) == 0) {
            s->p += 4;
            v = jnew(J_BOOL);
            v->boolean = 1;
            return v;
        }
        break;
    case 'f':
        if (strncmp(s->p, "false", 5) == 0) {
            s->p += 5;
            return jnew(J_BOOL);
        }
        break;
    case 'n':
        if (strncmp(s->p, "null", 4) == 0) {
            s->p += 4;
            return jnew(J_NULL);
        }
        break;
    default:
        if (*s->p == '-' || (*s->p >= '0' && *s->p <= '9')) {
            char *end;
            v = jnew(J_NUM);
            v->num = strtod(s->p, &end);
            if (end == s->p) break;
            if (*s->p != '-') v->u = strtoull(s->p, NULL, 10);
            s->p = end;
            return v;
        }
    }
    s->err = "unexpected character";
    return NULL;
}

/* Parses one JSON text; NULL with *err set when it is not one. */
static jval *jparse(const char *text, const char **err) {
    struct jparser s;
    jval *v;
    s.p = text;
    s.err = NULL;
    v = jvalue(&s, 0);
    if (v) {
        jskip(&s);
        if (*s.p != '\0') {
            s.err = "trailing characters";
            jfree(v);
            v = NULL;
        }
    }
    *err = s.err;
    return v;
}

static jval *jget(const jval *obj, const char *key) {
    size_t i;
    if (!obj || obj->type != J_OBJ) return NULL;
    for (i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
    return NULL;
}

static const char *jstr(const jval *obj, const char *key) {
    const jval *v = jget(obj, key);
    return v && v->type == J_STR ? v->str : "";
}

static unsigned long long jnum(const jval *obj, const char *key) {
    const jval *v = jget(obj, key);
    return v && v->type == J_NUM ? v->u : 0;
}

/* ---- writing ---- */

typedef struct {
    char *s;
    size_t len, cap;
} jbuf;

static void jb_raw(jbuf *b, const char *text, size_t n) {
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->s = xrealloc(b->s, b->cap);
    }
    memcpy(b->s + b->len, text, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void jb_lit(jbuf *b, const char *text) { jb_raw(b, text, strlen(text)); }

static void jb_printf(jbuf *b, const char *fmt, ...) {
    char tmp[128];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) jb_raw(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* A JSON string, escaped. */
static void jb_str(jbuf *b, const char *text) {
    const unsigned char *p = (const unsigned char *)text;
    jb_raw(b, "\"", 1);
    for (; *p; p++) {
        char esc[8];
        switch (*p) {
        case '"': jb_raw(b, "\\\"", 2); break;
        case '\\': jb_raw(b, "\\\\", 2); break;
        case '\n': jb_raw(b, "\\n", 2); break;
        case '\r': jb_raw(b, "\\r", 2); break;
        case '\t': jb_raw(b, "\\t", 2); break;
        default:
            if (*p < 0x20) {
                snprintf(esc, sizeof esc, "\\u%04x", *p);
                jb_raw(b, esc, 6);
            } else {
                jb_raw(b, (const char *)p, 1);
            }
        }
    }
    jb_raw(b, "\"", 1);
}


#endif
