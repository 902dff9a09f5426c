/*
 * Self-test of the fake CUPTI (tests/cupti_fake/cupti.c): dlopens the library named by argv[1]
 * and runs the PM sampling flow p3lab uses, plus the scripted behaviours (privilege, lose,
 * multipass, counter data full, log). Prints one line per check; exits 1 on any mismatch.
 *   cc -shared -fPIC -O1 -o /tmp/fk/libcupti.so tests/cupti_fake/cupti.c
 *   cc -O1 -o /tmp/fk/selftest tests/cupti_fake/selftest.c -ldl && /tmp/fk/selftest /tmp/fk/libcupti.so
 */
#define _GNU_SOURCE
#include "cupti_abi.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *lib;
static int failures, setconfigs_ok;

static void *sym(const char *name) {
    void *f = dlsym(lib, name);
    if (!f) fprintf(stderr, "missing symbol %s\n", name), exit(2);
    return f;
}
/* Calls the library's `fn` on a params pointer; S declares a params struct with structSize set. */
#define CALL(fn, arg) ((CUptiResult(*)(__typeof__(arg)))sym(#fn))(arg)
#define S(T, v, ...) T v = {.structSize = sizeof(T), __VA_ARGS__}
#define CHECK(cond, ...) do { int ok_ = !!(cond); printf("%s ", ok_ ? "ok  " : "FAIL"); \
    printf(__VA_ARGS__); putchar('\n'); failures += !ok_; } while (0)
#define RC(want, fn, arg) do { CUptiResult r_ = CALL(fn, arg); \
    CHECK(r_ == (want), "%s(%s) -> %d (want %d)", #fn, #arg, (int)r_, (int)(want)); } while (0)
#define OK(fn, arg) RC(CUPTI_SUCCESS, fn, arg)
#define I_NS 100000u
#define FULL CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL
#define END CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS

static const char *MAIN[8] = {
    "TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed", "dram__bytes_read.sum",
    "gpc__cycles_elapsed.avg.per_second", "LTS.TriageCompute.lts__throughput.avg.pct_of_peak_sustained_elapsed",
    "dram__throughput.avg.pct_of_peak_sustained_elapsed", "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "sm__inst_executed.sum", "SM_A.TriageCompute.sm__pipe_tensor_cycles_active_realtime.avg.pct_of_peak_sustained_elapsed"};
/* VALUES sets sm__throughput=12, dram__throughput=87.5; ".sum" is 1000/us * 100 us. */
static const double MAIN_VALUES[8] = {12, 100000, 1.98e9, 10, 87.5, 10, 100000, 10};

typedef struct { CUpti_Profiler_Host_Object *host; uint8_t *cfg; size_t cfg_size, passes; } Host;
static Host host_with(const char **names, size_t n) {
    Host h = {0};
    S(CUpti_Profiler_Host_Initialize_Params, hi, .profilerType = CUPTI_PROFILER_TYPE_PM_SAMPLING,
      .pChipName = "FAKE100");
    OK(cuptiProfilerHostInitialize, &hi);
    S(CUpti_Profiler_Host_ConfigAddMetrics_Params, add, .pHostObject = h.host = hi.pHostObject,
      .ppMetricNames = names, .numMetrics = n);
    OK(cuptiProfilerHostConfigAddMetrics, &add);
    S(CUpti_Profiler_Host_GetConfigImageSize_Params, sz, .pHostObject = h.host);
    OK(cuptiProfilerHostGetConfigImageSize, &sz);
    S(CUpti_Profiler_Host_GetConfigImage_Params, im, .pHostObject = h.host,
      .configImageSize = h.cfg_size = sz.configImageSize, .pConfigImage = h.cfg = malloc(sz.configImageSize));
    OK(cuptiProfilerHostGetConfigImage, &im);
    S(CUpti_Profiler_Host_GetNumOfPasses_Params, np, .pConfigImage = h.cfg, .configImageSize = h.cfg_size);
    OK(cuptiProfilerHostGetNumOfPasses, &np);
    h.passes = np.numOfPasses;
    return h;
}
static void host_free(Host *h) {
    S(CUpti_Profiler_Host_Deinitialize_Params, hd, .pHostObject = h->host);
    OK(cuptiProfilerHostDeinitialize, &hd);
    free(h->cfg);
}
static CUpti_PmSampling_Object *enable(void) {
    S(CUpti_PmSampling_Enable_Params, en);
    OK(cuptiPmSamplingEnable, &en);
    return en.pPmSamplingObject;
}
static void disable(CUpti_PmSampling_Object *o) {
    S(CUpti_PmSampling_Disable_Params, d, .pPmSamplingObject = o);
    OK(cuptiPmSamplingDisable, &d);
}
static CUptiResult set_config(CUpti_PmSampling_Object *o, const Host *h) {
    S(CUpti_PmSampling_SetConfig_Params, sc, .pPmSamplingObject = o, .pConfig = h->cfg,
      .configSize = h->cfg_size, .hardwareBufferSize = 512 << 20, .samplingInterval = I_NS,
      .triggerMode = CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL);
    CUptiResult r = CALL(cuptiPmSamplingSetConfig, &sc);
    setconfigs_ok += r == CUPTI_SUCCESS;
    return r;
}
static void init_image(CUpti_PmSampling_Object *o, uint8_t *img, size_t size) {
    S(CUpti_PmSampling_CounterDataImage_Initialize_Params, ci, .pPmSamplingObject = o,
      .pCounterData = img, .counterDataSize = size);
    OK(cuptiPmSamplingCounterDataImageInitialize, &ci);
}
/* SetConfig, a counter data image for max_samples, Start, sleep, Stop. Returns the image. */
static uint8_t *session(CUpti_PmSampling_Object *o, const Host *h, uint32_t max_samples, long ms, size_t *size) {
    CHECK(set_config(o, h) == CUPTI_SUCCESS, "SetConfig interval %u ns", I_NS);
    S(CUpti_PmSampling_GetCounterDataSize_Params, cs, .pPmSamplingObject = o, .pMetricNames = MAIN,
      .numMetrics = 8, .maxSamples = max_samples);
    OK(cuptiPmSamplingGetCounterDataSize, &cs);
    uint8_t *img = malloc(*size = cs.counterDataSize);
    init_image(o, img, *size);
    S(CUpti_PmSampling_Start_Params, st, .pPmSamplingObject = o);
    OK(cuptiPmSamplingStart, &st);
    RC(CUPTI_ERROR_INVALID_OPERATION, cuptiPmSamplingStart, &st);
    nanosleep(&(struct timespec){0, ms * 1000000L}, NULL);
    S(CUpti_PmSampling_Stop_Params, sp, .pPmSamplingObject = o);
    OK(cuptiPmSamplingStop, &sp);
    RC(CUPTI_ERROR_INVALID_OPERATION, cuptiPmSamplingStop, &sp);
    return img;
}
/* Decodes into img; returns its populated sample count. */
static size_t decode(CUpti_PmSampling_Object *o, uint8_t *img, size_t size, int *reason, int *overflow) {
    S(CUpti_PmSampling_DecodeData_Params, dd, .pPmSamplingObject = o, .pCounterDataImage = img,
      .counterDataImageSize = size);
    OK(cuptiPmSamplingDecodeData, &dd);
    *reason = dd.decodeStopReason, *overflow = dd.overflow;
    S(CUpti_PmSampling_GetCounterDataInfo_Params, in, .pCounterDataImage = img, .counterDataImageSize = size);
    OK(cuptiPmSamplingGetCounterDataInfo, &in);
    CHECK(in.numCompletedSamples == in.numPopulatedSamples, "%zu samples decoded, capacity %zu",
          in.numPopulatedSamples, in.numTotalSamples);
    return in.numPopulatedSamples;
}
static CUptiResult sample(CUpti_PmSampling_Object *o, uint8_t *img, size_t size, size_t i, uint64_t *t) {
    S(CUpti_PmSampling_CounterData_GetSampleInfo_Params, si, .pPmSamplingObject = o,
      .pCounterDataImage = img, .counterDataImageSize = size, .sampleIndex = i);
    CUptiResult r = CALL(cuptiPmSamplingCounterDataGetSampleInfo, &si);
    t[0] = si.startTimestamp, t[1] = si.endTimestamp;
    return r;
}
/* Checks samples [0, n) last I_NS each and follow one another (and *prev_end if nonzero). */
static size_t check_samples(CUpti_PmSampling_Object *o, uint8_t *img, size_t size, size_t n, uint64_t *prev_end) {
    int good = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t t[2];
        good &= !sample(o, img, size, i, t) && t[1] - t[0] == I_NS && (!*prev_end || t[0] == *prev_end);
        *prev_end = t[1];
    }
    CHECK(good, "%zu samples of %u ns, back to back", n, I_NS);
    return n;
}

int main(int argc, char **argv) {
    if (argc != 2) return fprintf(stderr, "usage: %s libcupti.so\n", argv[0]), 2;
    if (!(lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL))) return fprintf(stderr, "%s\n", dlerror()), 2;
    char logpath[] = "/tmp/cupti_fake_log_XXXXXX";
    close(mkstemp(logpath));
    setenv("P3LAB_FAKE_CUPTI_LOG", logpath, 1);
    setenv("P3LAB_FAKE_CUPTI_VALUES", "dram__throughput=87.5,sm__throughput=12", 1);
    int reason, overflow;
    uint64_t t0, t1, t[2], t2[2], prev = 0;
    size_t n, size;

    /* init (scripted failure, bad structSize), chip name, counter availability */
    S(CUpti_Profiler_Initialize_Params, ini);
    S(CUpti_Device_GetChipName_Params, chip);
    RC(CUPTI_ERROR_NOT_INITIALIZED, cuptiDeviceGetChipName, &chip);
    setenv("P3LAB_FAKE_CUPTI_FAIL", "init", 1);
    RC(CUPTI_ERROR_UNKNOWN, cuptiProfilerInitialize, &ini);
    unsetenv("P3LAB_FAKE_CUPTI_FAIL");
    ini.structSize = 0;
    RC(CUPTI_ERROR_INVALID_PARAMETER, cuptiProfilerInitialize, &ini);
    ini.structSize = sizeof ini;
    OK(cuptiProfilerInitialize, &ini);
    OK(cuptiDeviceGetChipName, &chip);
    CHECK(chip.pChipName && !strcmp(chip.pChipName, "FAKE100"), "chip name %s", chip.pChipName);
    S(CUpti_PmSampling_GetCounterAvailability_Params, av);
    OK(cuptiPmSamplingGetCounterAvailability, &av);
    CHECK(av.counterAvailabilityImageSize == 64, "availability size %zu", av.counterAvailabilityImageSize);
    uint8_t avail[64];
    av.pCounterAvailabilityImage = avail;
    OK(cuptiPmSamplingGetCounterAvailability, &av);

    /* host object: base metrics, properties, a refused batch, then the 8-metric config */
    Host h = host_with(MAIN, 0);
    static const size_t want_base[3] = {5, 1, 5};
    for (int ty = 0; ty < 3; ty++) {
        S(CUpti_Profiler_Host_GetBaseMetrics_Params, bm, .pHostObject = h.host, .metricType = (CUpti_MetricType)ty);
        OK(cuptiProfilerHostGetBaseMetrics, &bm);
        CHECK(bm.numMetrics == want_base[ty], "type %d: %zu base metrics, first %s", ty, bm.numMetrics,
              bm.numMetrics ? bm.ppMetricNames[0] : "-");
    }
    S(CUpti_Profiler_Host_GetMetricProperties_Params, mp, .pHostObject = h.host, .pMetricName = MAIN[3]);
    OK(cuptiProfilerHostGetMetricProperties, &mp);
    CHECK(mp.metricType == CUPTI_METRIC_TYPE_THROUGHPUT && !strcmp(mp.pHwUnit, "lts") &&
          !strcmp(mp.pDimUnit, "percent") && !strncmp(mp.pDescription, "fake metric LTS.", 16),
          "properties: %s / %s / %s / %d", mp.pDescription, mp.pHwUnit, mp.pDimUnit, mp.metricType);
    mp.pMetricName = "dram__bogus.sum";
    RC(CUPTI_ERROR_INVALID_METRIC_NAME, cuptiProfilerHostGetMetricProperties, &mp);
    const char *bad[2] = {"dram__bytes_read.sum", "sm__unknown_thing.sum"};
    S(CUpti_Profiler_Host_ConfigAddMetrics_Params, add, .pHostObject = h.host, .ppMetricNames = bad, .numMetrics = 2);
    RC(CUPTI_ERROR_INVALID_METRIC_NAME, cuptiProfilerHostConfigAddMetrics, &add);
    S(CUpti_Profiler_Host_GetConfigImageSize_Params, sz, .pHostObject = h.host);
    OK(cuptiProfilerHostGetConfigImageSize, &sz);
    CHECK(sz.configImageSize == h.cfg_size, "refused batch added nothing");
    host_free(&h);
    h = host_with(MAIN, 8);
    CHECK(h.passes == 1, "8 metrics: %zu pass", h.passes);

    /* the main session: 100 us interval, 200 samples, 5 ms */
    S(CUpti_PmSampling_Enable_Params, en, .deviceIndex = 1);
    RC(CUPTI_ERROR_INVALID_PARAMETER, cuptiPmSamplingEnable, &en);
    CUpti_PmSampling_Object *o = enable();
    en.deviceIndex = 0;
    RC(CUPTI_ERROR_INVALID_OPERATION, cuptiPmSamplingEnable, &en);
    CALL(cuptiGetTimestamp, &t0);
    uint8_t *img = session(o, &h, 200, 5, &size);
    CALL(cuptiGetTimestamp, &t1);
    n = decode(o, img, size, &reason, &overflow);
    CHECK(n >= 45 && !overflow && (reason == END || (reason == FULL && n == 200)),
          "main: %zu samples, reason %d, overflow %d", n, reason, overflow);
    check_samples(o, img, size, n, &prev);
    sample(o, img, size, 0, t);
    CHECK(t[0] >= t0 && prev <= t1, "samples within [%llu, %llu]", (unsigned long long)t0, (unsigned long long)t1);
    CHECK(sample(o, img, size, n, t) == CUPTI_ERROR_INVALID_PARAMETER, "sample %zu out of range", n);
    double v[8];
    S(CUpti_Profiler_Host_EvaluateToGpuValues_Params, ev, .pHostObject = h.host, .pCounterDataImage = img,
      .counterDataImageSize = size, .ppMetricNames = MAIN, .numMetrics = 8, .pMetricValues = v, .rangeIndex = n - 1);
    OK(cuptiProfilerHostEvaluateToGpuValues, &ev);
    for (int i = 0; i < 8; i++)
        CHECK(v[i] > MAIN_VALUES[i] * (1 - 1e-12) && v[i] < MAIN_VALUES[i] * (1 + 1e-12), "%s = %g", MAIN[i], v[i]);
    const char *other = "sm__warps_active.avg.pct_of_peak_sustained_active";
    ev.ppMetricNames = &other, ev.numMetrics = 1;
    RC(CUPTI_ERROR_INVALID_METRIC_NAME, cuptiProfilerHostEvaluateToGpuValues, &ev);
    ev.ppMetricNames = MAIN, ev.rangeIndex = n;
    RC(CUPTI_ERROR_INVALID_PARAMETER, cuptiProfilerHostEvaluateToGpuValues, &ev);
    if (reason == END) {
        init_image(o, img, size);
        CHECK(decode(o, img, size, &reason, &overflow) == 0, "no sample decoded twice");
    }
    disable(o), free(img);

    /* COUNTER_DATA_FULL: a 10-sample image, drained in chunks */
    o = enable();
    img = session(o, &h, 10, 5, &size), prev = 0;
    n = decode(o, img, size, &reason, &overflow);
    CHECK(n == 10 && reason == FULL, "full after %zu", n);
    n = decode(o, img, size, &reason, &overflow);
    CHECK(n == 10 && reason == FULL, "still full without re-initialization");
    size_t total = check_samples(o, img, size, n, &prev);
    for (int round = 0; reason == FULL && round < 1000; round++) {
        init_image(o, img, size);
        total += check_samples(o, img, size, decode(o, img, size, &reason, &overflow), &prev);
    }
    CHECK(total >= 45 && reason == END, "drained %zu samples in 10-sample chunks", total);
    disable(o), free(img);

    /* P3LAB_FAKE_CUPTI_LOSE=3: intervals 3, 6, ... are dropped */
    setenv("P3LAB_FAKE_CUPTI_LOSE", "3", 1);
    o = enable();
    img = session(o, &h, 200, 3, &size);
    n = decode(o, img, size, &reason, &overflow);
    sample(o, img, size, 1, t), sample(o, img, size, 2, t2);
    CHECK(n >= 10 && overflow == 1 && t2[0] - t[1] == I_NS, "lose: %zu samples, overflow %d, gap %llu ns",
          n, overflow, (unsigned long long)(t2[0] - t[1]));
    unsetenv("P3LAB_FAKE_CUPTI_LOSE");

    /* multipass configs, which PM sampling refuses */
    const char *mp2[2] = {"fake__multipass_counter.sum", "dram__bytes_read.sum"};
    Host h2 = host_with(mp2, 2);
    CHECK(h2.passes == 2, "fake__multipass_counter: %zu passes", h2.passes);
    CHECK(set_config(o, &h2) == CUPTI_ERROR_INVALID_PARAMETER, "SetConfig refuses a 2-pass config");
    setenv("P3LAB_FAKE_CUPTI_MAX_PER_PASS", "4", 1);
    S(CUpti_Profiler_Host_GetNumOfPasses_Params, np, .pConfigImage = h.cfg, .configImageSize = h.cfg_size);
    OK(cuptiProfilerHostGetNumOfPasses, &np);
    CHECK(np.numOfPasses == 2, "8 metrics at 4 per pass: %zu passes", np.numOfPasses);
    CHECK(set_config(o, &h) == CUPTI_ERROR_INVALID_PARAMETER, "SetConfig refuses it too");
    unsetenv("P3LAB_FAKE_CUPTI_MAX_PER_PASS");
    disable(o), free(img), host_free(&h2);

    /* P3LAB_FAKE_CUPTI_FAIL=privilege */
    setenv("P3LAB_FAKE_CUPTI_FAIL", "privilege", 1);
    RC(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, cuptiPmSamplingGetCounterAvailability, &av);
    RC(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, cuptiPmSamplingEnable, &en);
    const char *str = "";
    ((CUptiResult(*)(CUptiResult, const char **))sym("cuptiGetResultString"))(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, &str);
    CHECK(!strcmp(str, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"), "result string %s", str);
    unsetenv("P3LAB_FAKE_CUPTI_FAIL");

    /* teardown, then the log: one line per SetConfig, with its metrics and interval */
    host_free(&h);
    S(CUpti_Profiler_DeInitialize_Params, dei);
    OK(cuptiProfilerDeInitialize, &dei);
    RC(CUPTI_ERROR_NOT_INITIALIZED, cuptiDeviceGetChipName, &chip);
    char line[4096];
    int sc = 0, first = 0;
    FILE *f = fopen(logpath, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "cuptiPmSamplingSetConfig ", 25) && strstr(line, " rc=0"))
            first |= !sc++ && strstr(line, "metrics=TriageCompute.sm__throughput") && strstr(line, "interval=100000");
    if (f) fclose(f);
    CHECK(sc == setconfigs_ok && first, "log: %d successful SetConfig lines", sc);
    unlink(logpath);
    printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures != 0;
}
