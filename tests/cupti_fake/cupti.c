/*
 * A test-only fake of NVIDIA's CUPTI PM sampling library (libcupti.so), for CI machines with no
 * NVIDIA GPU. p3lab dlopens it (`--cupti <dir>/libcupti.so`); tests build it with
 *   cc -shared -fPIC -O1 -o <dir>/libcupti.so tests/cupti_fake/cupti.c
 * The params structs (cupti_abi.h) mirror the public CUPTI header layouts for the functions
 * below; everything behind them is invented. "Samples" are wall-clock intervals: with interval I
 * (ns; SYSCLK mode counts cycles at 1 GHz, so the same), sample k covers
 * [start + k*I, start + (k+1)*I] in CLOCK_REALTIME ns, and only complete intervals are decoded.
 * One PM sampling object at a time, device 0 only, chip "FAKE100"; a global mutex guards state.
 * Every params call checks structSize >= the header's *_STRUCT_SIZE and pPriv == NULL.
 *
 * Environment (read when used, so a process may change it between calls):
 *   P3LAB_FAKE_CUPTI_FAIL=privilege  cuptiPmSamplingGetCounterAvailability and
 *                                    cuptiPmSamplingEnable return CUPTI_ERROR_INSUFFICIENT_PRIVILEGES
 *   P3LAB_FAKE_CUPTI_FAIL=init       cuptiProfilerInitialize returns CUPTI_ERROR_UNKNOWN
 *   P3LAB_FAKE_CUPTI_LOSE=K (K>=2)   every K-th interval after Start is dropped (a gap between
 *                                    its neighbours); the decode that drops it reports overflow=1
 *   P3LAB_FAKE_CUPTI_VALUES=b=v,...  value V per base metric (or full name). Defaults: throughput
 *                                    and ratio 10.0, gpc__cycles_elapsed*.per_second 1.98e9,
 *                                    other counters 1000.0. A name ending ".sum" yields
 *                                    V * (sample duration in us); any other yields V.
 *   P3LAB_FAKE_CUPTI_MAX_PER_PASS=N  metrics per pass (default 8); passes = ceil(n/N), and at
 *                                    least 2 when fake__multipass_counter is configured
 *   P3LAB_FAKE_CUPTI_LOG=path        append "<function>[ details] rc=<code>" per exported call;
 *                                    SetConfig details: "metrics=a,b interval=<I> mode=<m>",
 *                                    DecodeData: "decoded=N populated=N reason=R overflow=O"
 *
 * Config image: "P3FKCFG1", u32 count, u32 bytes, then `bytes` of NUL-terminated names.
 * Counter data image: "P3FKCDI1", u32 capacity, u32 metric count, u32 populated samples,
 * u32 name bytes, u64 the serial of the sampler object that initialized it (another object's
 * Initialize on it is refused, as CUPTI refused it on GH100); the names (NUL-terminated, padded to 8); then `capacity` records of
 * { u64 start ns, u64 end ns, f64 value per metric }; the metrics are the PM object's config
 * and the capacity is what counterDataSize holds of them. Counter availability image: 64 bytes.
 */
#define _GNU_SOURCE
#include "cupti_abi.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define CHIP "FAKE100"
#define AVAIL_SIZE 64
#define MAX_METRICS 256
#define PAD8(n) (((n) + 7) & ~(size_t)7)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_initialized, g_enabled;
static char g_detail[2048];

/* Base metrics grouped by type: counters [0,5), ratio [5,6), throughputs [6,19). */
static const char *NAMES[] = {
    "dram__bytes_read", "dram__bytes_write", "gpc__cycles_elapsed", "sm__inst_executed",
    "fake__multipass_counter", "sm__warps_active", "sm__throughput", "dram__throughput",
    "lts__throughput", "l1tex__throughput", "sm__pipe_tensor_cycles_active_realtime",
    /* The pipes and L1TEX data-pipe wavefronts behind the declared units (issue 39), listed
     * as throughputs so that their `.avg.pct_of_peak_sustained_elapsed` forms yield V. */
    "sm__inst_executed_pipe_fma_realtime", "sm__inst_executed_pipe_fmaheavy_realtime",
    "sm__inst_executed_pipe_alu_realtime", "sm__pipe_fp64_cycles_active_realtime",
    "sm__inst_executed_pipe_xu_realtime", "l1tex__data_pipe_lsu_wavefronts_mem_shared",
    "l1tex__data_pipe_tex_wavefronts",
    /* A sub-unit outside the columns' set: `p3lab peak` counts it for the int units. */
    "sm__pipe_fmaheavy_cycles_active"};
static const char *HW[] = {"dram", "dram", "gpc", "sm", "fake", "sm", "sm", "dram", "lts", "l1tex", "sm",
                           "sm", "sm", "sm", "sm", "sm", "l1tex", "l1tex", "sm"};
static const char *DIM[] = {"bytes", "bytes", "cycles", "inst", "count", "warps",
                            "percent", "percent", "percent", "percent", "percent",
                            "percent", "percent", "percent", "percent", "percent", "percent",
                            "percent", "percent"};
static const int TYPE_FIRST[] = {0, 5, 6, 19};
enum { N_BASE = 19, I_GPC_CYCLES = 2, I_MULTIPASS = 4 };

static CUpti_MetricType type_of(int i) {
    return i < TYPE_FIRST[1] ? CUPTI_METRIC_TYPE_COUNTER
           : i < TYPE_FIRST[2] ? CUPTI_METRIC_TYPE_RATIO : CUPTI_METRIC_TYPE_THROUGHPUT;
}
static int ends_with(const char *s, const char *t) {
    size_t a = strlen(s), b = strlen(t);
    return a >= b && !strcmp(s + a - b, t);
}
static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
static int env_is(const char *var, const char *val) {
    const char *e = getenv(var);
    return e && !strcmp(e, val);
}

/* Base metric of a full name: leading components without "__" are prefixes (TriageCompute.,
 * LTS.TriageCompute.); the first with "__" is the base; the rest, from its '.', the suffix. */
static int lookup(const char *name, const char **suffix) {
    for (const char *s = name;;) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        if (memmem(s, len, "__", 2)) {
            if (suffix) *suffix = s + len;
            if (strstr(name, "unknown")) return -1;
            for (int i = 0; i < N_BASE; i++)
                if (strlen(NAMES[i]) == len && !strncmp(NAMES[i], s, len)) return i;
            return -1;
        }
        if (!dot) return -1;
        s = dot + 1;
    }
}

static void logline(const char *fn, CUptiResult r) {
    const char *path = getenv("P3LAB_FAKE_CUPTI_LOG");
    FILE *f = path && *path ? fopen(path, "a") : NULL;
    if (!f) return;
    fprintf(f, "%s%s%s rc=%d\n", fn, g_detail[0] ? " " : "", g_detail, (int)r);
    fclose(f);
}

/* Defines exported `name(T *p)`: checks p, structSize (up to `last`) and pPriv == NULL, runs the
 * body under the global lock and logs the call. */
#define API(name, T, last)                                                                  \
    static CUptiResult name##_impl(T *p);                                                   \
    EXPORT CUptiResult name(T *p) {                                                         \
        pthread_mutex_lock(&g_lock);                                                        \
        g_detail[0] = 0;                                                                    \
        CUptiResult r = !p || p->structSize < offsetof(T, last) + sizeof(p->last) || p->pPriv \
                            ? CUPTI_ERROR_INVALID_PARAMETER : name##_impl(p);               \
        logline(#name, r);                                                                  \
        pthread_mutex_unlock(&g_lock);                                                      \
        return r;                                                                           \
    }                                                                                       \
    static CUptiResult name##_impl(T *p)
static CUptiResult plain(const char *fn, CUptiResult r) { /* log a call without params */
    pthread_mutex_lock(&g_lock);
    g_detail[0] = 0;
    logline(fn, r);
    pthread_mutex_unlock(&g_lock);
    return r;
}
#define NEED(cond, err) do { if (!(cond)) return (err); } while (0)

EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str) {
#define FAKE_CUPTI_CASE(name, value) case name: *str = #name; return plain(__func__, CUPTI_SUCCESS);
    if (str) switch (result) { FAKE_CUPTI_RESULTS(FAKE_CUPTI_CASE) default: break; }
    return plain(__func__, CUPTI_ERROR_INVALID_PARAMETER);
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *timestamp) {
    if (timestamp) *timestamp = now_ns();
    return plain(__func__, timestamp ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER);
}

API(cuptiProfilerInitialize, CUpti_Profiler_Initialize_Params, pPriv) {
    (void)p;
    NEED(!env_is("P3LAB_FAKE_CUPTI_FAIL", "init"), CUPTI_ERROR_UNKNOWN);
    g_initialized = 1;
    return CUPTI_SUCCESS;
}
API(cuptiProfilerDeInitialize, CUpti_Profiler_DeInitialize_Params, pPriv) {
    (void)p;
    g_initialized = 0;
    return CUPTI_SUCCESS;
}
API(cuptiDeviceGetChipName, CUpti_Device_GetChipName_Params, pChipName) {
    NEED(g_initialized, CUPTI_ERROR_NOT_INITIALIZED);
    NEED(p->deviceIndex == 0, CUPTI_ERROR_INVALID_PARAMETER);
    p->pChipName = CHIP;
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingGetCounterAvailability, CUpti_PmSampling_GetCounterAvailability_Params,
    pCounterAvailabilityImage) {
    NEED(g_initialized, CUPTI_ERROR_NOT_INITIALIZED);
    NEED(!env_is("P3LAB_FAKE_CUPTI_FAIL", "privilege"), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    NEED(p->deviceIndex == 0, CUPTI_ERROR_INVALID_PARAMETER);
    if (p->pCounterAvailabilityImage) {
        NEED(p->counterAvailabilityImageSize >= AVAIL_SIZE, CUPTI_ERROR_INVALID_PARAMETER);
        memcpy(p->pCounterAvailabilityImage, "P3FKAVL1", 8);
        for (int i = 8; i < AVAIL_SIZE; i++) p->pCounterAvailabilityImage[i] = (uint8_t)i;
    }
    p->counterAvailabilityImageSize = AVAIL_SIZE;
    return CUPTI_SUCCESS;
}

/* ---- config image: CfgHdr, then the names */
typedef struct { char magic[8]; uint32_t count, bytes; } CfgHdr;

static size_t names_bytes(const char *const *names, size_t n) {
    size_t b = 0;
    for (size_t i = 0; i < n; i++) b += strlen(names[i]) + 1;
    return b;
}
static void put_names(uint8_t *dst, const char *const *names, size_t n) {
    for (size_t i = 0; i < n; i++) dst = (uint8_t *)stpcpy((char *)dst, names[i]) + 1;
}
/* Parses `count` NUL-terminated names from `bytes` bytes at src; returns 0 if well formed. */
static int get_names(const uint8_t *src, size_t bytes, size_t count, const char **names) {
    const char *s = (const char *)src, *end = s + bytes;
    if (count > MAX_METRICS) return -1;
    for (size_t i = 0; i < count; i++) {
        const char *z = memchr(s, 0, (size_t)(end - s));
        if (!z) return -1;
        names[i] = s, s = z + 1;
    }
    return 0;
}
static int cfg_parse(const uint8_t *img, size_t size, const char **names, size_t *n) {
    CfgHdr h;
    if (!img || size < sizeof h) return -1;
    memcpy(&h, img, sizeof h);
    if (memcmp(h.magic, "P3FKCFG1", 8) || h.bytes > size - sizeof h) return -1;
    *n = h.count;
    return get_names(img + sizeof h, h.bytes, h.count, names);
}
static size_t passes_of(const char **names, size_t n) {
    const char *e = getenv("P3LAB_FAKE_CUPTI_MAX_PER_PASS");
    size_t max = e && atol(e) > 0 ? (size_t)atol(e) : 8, passes = n ? (n + max - 1) / max : 1;
    for (size_t i = 0; i < n; i++)
        if (lookup(names[i], NULL) == I_MULTIPASS && passes < 2) passes = 2;
    return passes;
}

/* ---- host object: its config image so far, plus strings handed out by GetMetricProperties */
struct CUpti_Profiler_Host_Object { uint8_t *cfg; char **strs; size_t nstrs; };

static const char *keep(CUpti_Profiler_Host_Object *h, char *s) {
    char **v = s ? realloc(h->strs, (h->nstrs + 1) * sizeof *v) : NULL;
    if (!v) return free(s), (const char *)NULL;
    h->strs = v;
    return h->strs[h->nstrs++] = s;
}

API(cuptiProfilerHostInitialize, CUpti_Profiler_Host_Initialize_Params, pHostObject) {
    NEED(p->profilerType == CUPTI_PROFILER_TYPE_PM_SAMPLING, CUPTI_ERROR_INVALID_PARAMETER);
    NEED(p->pChipName && !strcmp(p->pChipName, CHIP), CUPTI_ERROR_INVALID_PARAMETER);
    CUpti_Profiler_Host_Object *h = p->pHostObject = calloc(1, sizeof *h);
    NEED(h && (h->cfg = calloc(1, sizeof(CfgHdr))), CUPTI_ERROR_OUT_OF_MEMORY);
    memcpy(h->cfg, "P3FKCFG1", 8);
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostDeinitialize, CUpti_Profiler_Host_Deinitialize_Params, pHostObject) {
    CUpti_Profiler_Host_Object *h = p->pHostObject;
    NEED(h, CUPTI_ERROR_INVALID_PARAMETER);
    for (size_t i = 0; i < h->nstrs; i++) free(h->strs[i]);
    free(h->cfg), free(h->strs), free(h);
    p->pHostObject = NULL;
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostGetBaseMetrics, CUpti_Profiler_Host_GetBaseMetrics_Params, numMetrics) {
    NEED(p->pHostObject && (unsigned)p->metricType <= CUPTI_METRIC_TYPE_THROUGHPUT,
         CUPTI_ERROR_INVALID_PARAMETER);
    p->ppMetricNames = NAMES + TYPE_FIRST[p->metricType];
    p->numMetrics = (size_t)(TYPE_FIRST[p->metricType + 1] - TYPE_FIRST[p->metricType]);
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostGetMetricProperties, CUpti_Profiler_Host_GetMetricProperties_Params,
    metricType) {
    const char *suffix, *dim;
    char *s;
    NEED(p->pHostObject && p->pMetricName, CUPTI_ERROR_INVALID_PARAMETER);
    int i = lookup(p->pMetricName, &suffix);
    NEED(i >= 0, CUPTI_ERROR_INVALID_METRIC_NAME);
    dim = strstr(suffix, "pct_of_peak") ? "percent" : DIM[i];
    if (ends_with(suffix, ".per_second"))
        dim = keep(p->pHostObject, asprintf(&s, "%s/second", dim) < 0 ? NULL : s);
    p->pDescription = keep(p->pHostObject, asprintf(&s, "fake metric %s", p->pMetricName) < 0 ? NULL : s);
    NEED(dim && p->pDescription, CUPTI_ERROR_OUT_OF_MEMORY);
    p->pHwUnit = HW[i];
    p->pDimUnit = dim;
    p->metricType = type_of(i);
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostConfigAddMetrics, CUpti_Profiler_Host_ConfigAddMetrics_Params, numMetrics) {
    CUpti_Profiler_Host_Object *h = p->pHostObject;
    CfgHdr hdr;
    NEED(h && (p->ppMetricNames || !p->numMetrics), CUPTI_ERROR_INVALID_PARAMETER);
    memcpy(&hdr, h->cfg, sizeof hdr);
    NEED(hdr.count + p->numMetrics <= MAX_METRICS, CUPTI_ERROR_INVALID_PARAMETER);
    for (size_t i = 0; i < p->numMetrics; i++)
        NEED(p->ppMetricNames[i] && lookup(p->ppMetricNames[i], NULL) >= 0,
             CUPTI_ERROR_INVALID_METRIC_NAME);
    size_t add = names_bytes(p->ppMetricNames, p->numMetrics);
    uint8_t *cfg = realloc(h->cfg, sizeof hdr + hdr.bytes + add);
    NEED(cfg, CUPTI_ERROR_OUT_OF_MEMORY);
    put_names(cfg + sizeof hdr + hdr.bytes, p->ppMetricNames, p->numMetrics);
    hdr.count += (uint32_t)p->numMetrics, hdr.bytes += (uint32_t)add;
    memcpy(h->cfg = cfg, &hdr, sizeof hdr);
    return CUPTI_SUCCESS;
}

static size_t cfg_size(const CUpti_Profiler_Host_Object *h) {
    CfgHdr hdr;
    memcpy(&hdr, h->cfg, sizeof hdr);
    return sizeof hdr + hdr.bytes;
}
API(cuptiProfilerHostGetConfigImageSize, CUpti_Profiler_Host_GetConfigImageSize_Params,
    configImageSize) {
    NEED(p->pHostObject, CUPTI_ERROR_INVALID_PARAMETER);
    p->configImageSize = cfg_size(p->pHostObject);
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostGetConfigImage, CUpti_Profiler_Host_GetConfigImage_Params, pConfigImage) {
    NEED(p->pHostObject && p->pConfigImage && p->configImageSize >= cfg_size(p->pHostObject),
         CUPTI_ERROR_INVALID_PARAMETER);
    memcpy(p->pConfigImage, p->pHostObject->cfg, cfg_size(p->pHostObject));
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostGetNumOfPasses, CUpti_Profiler_Host_GetNumOfPasses_Params, numOfPasses) {
    const char *names[MAX_METRICS];
    size_t n;
    NEED(!cfg_parse(p->pConfigImage, p->configImageSize, names, &n), CUPTI_ERROR_INVALID_PARAMETER);
    p->numOfPasses = passes_of(names, n);
    return CUPTI_SUCCESS;
}

/* ---- PM sampling object */
struct CUpti_PmSampling_Object {
    uint8_t *cfg;                       /* copy of the config image; names point into it */
    const char *names[MAX_METRICS];
    size_t n, hwbuf;
    uint64_t interval, start, stop, next_k; /* next_k: next interval index to produce */
    int configured, running, started;
    uint64_t serial; /* which Enable made it: an image initialized for one object is refused by
                      * another (CUPTI refused it on GH100: CUPTI_ERROR_INVALID_PARAMETER) */
};
static uint64_t g_serial;

API(cuptiPmSamplingEnable, CUpti_PmSampling_Enable_Params, pPmSamplingObject) {
    NEED(g_initialized, CUPTI_ERROR_NOT_INITIALIZED);
    NEED(!env_is("P3LAB_FAKE_CUPTI_FAIL", "privilege"), CUPTI_ERROR_INSUFFICIENT_PRIVILEGES);
    NEED(p->deviceIndex == 0, CUPTI_ERROR_INVALID_PARAMETER);
    NEED(!g_enabled, CUPTI_ERROR_INVALID_OPERATION);
    p->pPmSamplingObject = calloc(1, sizeof *p->pPmSamplingObject);
    NEED(p->pPmSamplingObject, CUPTI_ERROR_OUT_OF_MEMORY);
    p->pPmSamplingObject->serial = ++g_serial;
    g_enabled = 1;
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingDisable, CUpti_PmSampling_Disable_Params, pPmSamplingObject) {
    NEED(p->pPmSamplingObject, CUPTI_ERROR_INVALID_PARAMETER);
    free(p->pPmSamplingObject->cfg);
    free(p->pPmSamplingObject);
    p->pPmSamplingObject = NULL;
    g_enabled = 0;
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingSetConfig, CUpti_PmSampling_SetConfig_Params, hwBufferAppendMode) {
    CUpti_PmSampling_Object *o = p->pPmSamplingObject;
    const char *names[MAX_METRICS];
    size_t n, len = 0;
    NEED(o && !cfg_parse(p->pConfig, p->configSize, names, &n), CUPTI_ERROR_INVALID_PARAMETER);
    len += (size_t)snprintf(g_detail, sizeof g_detail, "metrics=");
    for (size_t i = 0; i < n && len < sizeof g_detail; i++)
        len += (size_t)snprintf(g_detail + len, sizeof g_detail - len, "%s%s", i ? "," : "", names[i]);
    if (len < sizeof g_detail)
        snprintf(g_detail + len, sizeof g_detail - len, " interval=%llu mode=%d",
                 (unsigned long long)p->samplingInterval, (int)p->triggerMode);
    NEED(!o->running, CUPTI_ERROR_INVALID_OPERATION);
    NEED(n > 0 && passes_of(names, n) == 1, CUPTI_ERROR_INVALID_PARAMETER);
    NEED(p->samplingInterval > 0 && (unsigned)p->triggerMode <= 1, CUPTI_ERROR_INVALID_PARAMETER);
    uint8_t *cfg = malloc(p->configSize);
    NEED(cfg, CUPTI_ERROR_OUT_OF_MEMORY);
    memcpy(cfg, p->pConfig, p->configSize);
    free(o->cfg);
    o->cfg = cfg;
    cfg_parse(cfg, p->configSize, o->names, &o->n);
    o->interval = p->samplingInterval; /* SYSCLK: cycles at 1 GHz == ns */
    o->hwbuf = p->hardwareBufferSize;
    o->configured = 1, o->started = 0;
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingStart, CUpti_PmSampling_Start_Params, pPmSamplingObject) {
    CUpti_PmSampling_Object *o = p->pPmSamplingObject;
    NEED(o, CUPTI_ERROR_INVALID_PARAMETER);
    NEED(o->configured && !o->running, CUPTI_ERROR_INVALID_OPERATION);
    o->start = now_ns(), o->stop = 0, o->next_k = 0, o->running = o->started = 1;
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingStop, CUpti_PmSampling_Stop_Params, pPmSamplingObject) {
    CUpti_PmSampling_Object *o = p->pPmSamplingObject;
    NEED(o, CUPTI_ERROR_INVALID_PARAMETER);
    NEED(o->running, CUPTI_ERROR_INVALID_OPERATION);
    o->stop = now_ns(), o->running = 0;
    return CUPTI_SUCCESS;
}

/* ---- counter data image */
typedef struct { char magic[8]; uint32_t capacity, count, populated, bytes; uint64_t zero; } CdiHdr;
typedef struct { CdiHdr h; const char *names[MAX_METRICS]; size_t rec; uint8_t *recs; } Cdi;

static size_t cdi_size(size_t bytes, size_t count, size_t cap) {
    return sizeof(CdiHdr) + PAD8(bytes) + cap * (16 + 8 * count);
}
static int cdi_parse(const uint8_t *img, size_t size, Cdi *c) {
    if (!img || size < sizeof c->h) return -1;
    memcpy(&c->h, img, sizeof c->h);
    if (memcmp(c->h.magic, "P3FKCDI1", 8) || c->h.count > MAX_METRICS || c->h.bytes > size ||
        size < cdi_size(c->h.bytes, c->h.count, c->h.capacity))
        return -1;
    c->rec = 16 + 8 * (size_t)c->h.count;
    c->recs = (uint8_t *)img + sizeof c->h + PAD8(c->h.bytes);
    return get_names(img + sizeof c->h, c->h.bytes, c->h.count, c->names);
}
static double value_of(const char *name, double dur_us) {
    const char *suffix, *env = getenv("P3LAB_FAKE_CUPTI_VALUES");
    int i = lookup(name, &suffix);
    double v = i < 0 ? 1000.0 : type_of(i) != CUPTI_METRIC_TYPE_COUNTER ? 10.0
               : i == I_GPC_CYCLES && ends_with(suffix, ".per_second") ? 1.98e9 : 1000.0;
    char *copy = env ? strdup(env) : NULL, *save = NULL;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(t, '=');
        if (eq && (*eq = 0, !strcmp(t, name) || (i >= 0 && !strcmp(t, NAMES[i]))))
            v = strtod(eq + 1, NULL);
    }
    free(copy);
    return ends_with(name, ".sum") ? v * dur_us : v;
}

API(cuptiPmSamplingGetCounterDataSize, CUpti_PmSampling_GetCounterDataSize_Params,
    counterDataSize) {
    NEED(p->pPmSamplingObject && p->maxSamples && p->numMetrics <= MAX_METRICS &&
         (p->pMetricNames || !p->numMetrics), CUPTI_ERROR_INVALID_PARAMETER);
    for (size_t i = 0; i < p->numMetrics; i++) NEED(p->pMetricNames[i], CUPTI_ERROR_INVALID_PARAMETER);
    p->counterDataSize = cdi_size(names_bytes(p->pMetricNames, p->numMetrics), p->numMetrics,
                                  p->maxSamples);
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingCounterDataImageInitialize, CUpti_PmSampling_CounterDataImage_Initialize_Params,
    pCounterData) {
    CUpti_PmSampling_Object *o = p->pPmSamplingObject;
    NEED(o && p->pCounterData, CUPTI_ERROR_INVALID_PARAMETER);
    NEED(o->configured, CUPTI_ERROR_INVALID_OPERATION);
    size_t bytes = names_bytes(o->names, o->n), fixed = cdi_size(bytes, o->n, 0);
    NEED(p->counterDataSize >= cdi_size(bytes, o->n, 1), CUPTI_ERROR_INVALID_PARAMETER);
    CdiHdr old;
    memcpy(&old, p->pCounterData, sizeof old);
    NEED(memcmp(old.magic, "P3FKCDI1", 8) != 0 || old.zero == o->serial,
         CUPTI_ERROR_INVALID_PARAMETER);
    CdiHdr h = {"P3FKCDI1", (uint32_t)((p->counterDataSize - fixed) / (16 + 8 * o->n)),
                (uint32_t)o->n, 0, (uint32_t)bytes, o->serial};
    memset(p->pCounterData, 0, p->counterDataSize);
    memcpy(p->pCounterData, &h, sizeof h);
    put_names(p->pCounterData + sizeof h, o->names, o->n);
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingDecodeData, CUpti_PmSampling_DecodeData_Params, overflow) {
    CUpti_PmSampling_Object *o = p->pPmSamplingObject;
    Cdi c;
    NEED(o && !cdi_parse(p->pCounterDataImage, p->counterDataImageSize, &c),
         CUPTI_ERROR_INVALID_PARAMETER);
    NEED(o->configured, CUPTI_ERROR_INVALID_OPERATION);
    const char *e = getenv("P3LAB_FAKE_CUPTI_LOSE");
    uint64_t lose = e && atol(e) >= 2 ? (uint64_t)atol(e) : 0, limit = o->running ? now_ns() : o->stop;
    size_t decoded = 0;
    double vals[MAX_METRICS];
    for (size_t j = 0; j < c.h.count; j++) vals[j] = value_of(c.names[j], (double)o->interval / 1000.0);
    p->overflow = 0;
    p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS;
    /* P3LAB_FAKE_CUPTI_SILENT=text: a config with a metric containing `text` yields no
     * samples (as a second pass of some GH100 metrics did). */
    const char *silent = getenv("P3LAB_FAKE_CUPTI_SILENT");
    for (size_t j = 0; silent && *silent && j < c.h.count; j++)
        if (strstr(c.names[j], silent)) limit = 0;
    while (o->started && o->start + (o->next_k + 1) * o->interval <= limit) {
        uint64_t k = o->next_k, rec[2] = {o->start + k * o->interval, o->start + (k + 1) * o->interval};
        if (lose && (k + 1) % lose == 0) {
            o->next_k++, p->overflow = 1;
            continue;
        }
        if (c.h.populated >= c.h.capacity) {
            p->decodeStopReason = CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL;
            break;
        }
        uint8_t *r = c.recs + c.h.populated * c.rec;
        memcpy(r, rec, sizeof rec);
        memcpy(r + 16, vals, 8 * c.h.count);
        c.h.populated++, o->next_k++, decoded++;
    }
    memcpy(p->pCounterDataImage, &c.h, sizeof c.h);
    snprintf(g_detail, sizeof g_detail, "decoded=%zu populated=%u reason=%d overflow=%d", decoded,
             c.h.populated, (int)p->decodeStopReason, p->overflow);
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingGetCounterDataInfo, CUpti_PmSampling_GetCounterDataInfo_Params,
    numCompletedSamples) {
    Cdi c;
    NEED(!cdi_parse(p->pCounterDataImage, p->counterDataImageSize, &c), CUPTI_ERROR_INVALID_PARAMETER);
    p->numTotalSamples = c.h.capacity;
    p->numPopulatedSamples = p->numCompletedSamples = c.h.populated;
    return CUPTI_SUCCESS;
}
API(cuptiPmSamplingCounterDataGetSampleInfo, CUpti_PmSampling_CounterData_GetSampleInfo_Params,
    endTimestamp) {
    Cdi c;
    uint64_t rec[2];
    NEED(!cdi_parse(p->pCounterDataImage, p->counterDataImageSize, &c) &&
         p->sampleIndex < c.h.populated, CUPTI_ERROR_INVALID_PARAMETER);
    memcpy(rec, c.recs + p->sampleIndex * c.rec, sizeof rec);
    p->startTimestamp = rec[0], p->endTimestamp = rec[1];
    return CUPTI_SUCCESS;
}
API(cuptiProfilerHostEvaluateToGpuValues, CUpti_Profiler_Host_EvaluateToGpuValues_Params,
    pMetricValues) {
    Cdi c;
    NEED(p->pHostObject && p->pMetricValues && (p->ppMetricNames || !p->numMetrics) &&
         !cdi_parse(p->pCounterDataImage, p->counterDataImageSize, &c) &&
         p->rangeIndex < c.h.populated, CUPTI_ERROR_INVALID_PARAMETER);
    const uint8_t *r = c.recs + p->rangeIndex * c.rec;
    for (size_t i = 0; i < p->numMetrics; i++) {
        size_t j = 0;
        while (j < c.h.count && !(p->ppMetricNames[i] && !strcmp(c.names[j], p->ppMetricNames[i]))) j++;
        NEED(j < c.h.count, CUPTI_ERROR_INVALID_METRIC_NAME);
        memcpy(&p->pMetricValues[i], r + 16 + 8 * j, sizeof(double));
    }
    return CUPTI_SUCCESS;
}
