/*
 * cupti_abi.h: the subset of NVIDIA's public CUPTI ABI that tests/cupti_fake uses, written out
 * so that neither the fake nor its self-test needs the CUDA toolkit headers. Field order and
 * types mirror cupti_result.h, cupti_target.h, cupti_profiler_target.h, cupti_profiler_host.h
 * and cupti_pmsampling.h (CUDA 12.x/13 CUPTI, x86-64 LP64). Every enum is int-sized.
 */
#ifndef P3LAB_CUPTI_ABI_H
#define P3LAB_CUPTI_ABI_H
#include <stddef.h>
#include <stdint.h>

/* The CUptiResult codes the fake uses (cupti_result.h), as X(name, value). */
#define FAKE_CUPTI_RESULTS(X) X(CUPTI_SUCCESS, 0) X(CUPTI_ERROR_INVALID_PARAMETER, 1) \
    X(CUPTI_ERROR_INVALID_DEVICE, 2) X(CUPTI_ERROR_INVALID_OPERATION, 7)                \
    X(CUPTI_ERROR_OUT_OF_MEMORY, 8) X(CUPTI_ERROR_NOT_INITIALIZED, 15)                  \
    X(CUPTI_ERROR_INVALID_METRIC_NAME, 17) X(CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, 35)   \
    X(CUPTI_ERROR_UNKNOWN, 999)
#define FAKE_CUPTI_ENUM(name, value) name = value,
typedef enum CUptiResult { FAKE_CUPTI_RESULTS(FAKE_CUPTI_ENUM) CUPTI_ERROR_FORCE_INT = 0x7fffffff } CUptiResult;

typedef enum CUpti_MetricType {
    CUPTI_METRIC_TYPE_COUNTER = 0, CUPTI_METRIC_TYPE_RATIO = 1, CUPTI_METRIC_TYPE_THROUGHPUT = 2
} CUpti_MetricType;
typedef enum CUpti_ProfilerType {
    CUPTI_PROFILER_TYPE_RANGE_PROFILER = 0, CUPTI_PROFILER_TYPE_PM_SAMPLING = 1
} CUpti_ProfilerType;
typedef enum CUpti_PmSampling_TriggerMode {
    CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL = 0, /* interval in SYSCLK cycles */
    CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL = 1    /* interval in ns */
} CUpti_PmSampling_TriggerMode;
typedef enum CUpti_PmSampling_DecodeStopReason {
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_OTHER = 0,
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL = 1,
    CUPTI_PM_SAMPLING_DECODE_STOP_REASON_END_OF_RECORDS = 2
} CUpti_PmSampling_DecodeStopReason;
typedef enum CUpti_PmSampling_HardwareBuffer_AppendMode {
    CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST = 0,
    CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_LATEST = 1
} CUpti_PmSampling_HardwareBuffer_AppendMode;

typedef struct CUpti_Profiler_Host_Object CUpti_Profiler_Host_Object;
typedef struct CUpti_PmSampling_Object CUpti_PmSampling_Object;

/* cupti_profiler_target.h, cupti_target.h */
typedef struct { size_t structSize; void *pPriv; } CUpti_Profiler_Initialize_Params;
typedef struct { size_t structSize; void *pPriv; } CUpti_Profiler_DeInitialize_Params;
typedef struct {
    size_t structSize; void *pPriv; size_t deviceIndex; const char *pChipName;
} CUpti_Device_GetChipName_Params;

/* cupti_profiler_host.h */
typedef struct {
    size_t structSize; void *pPriv; CUpti_ProfilerType profilerType; const char *pChipName;
    const uint8_t *pCounterAvailabilityImage; CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Initialize_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
} CUpti_Profiler_Host_Deinitialize_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
    CUpti_MetricType metricType; const char **ppMetricNames; size_t numMetrics;
} CUpti_Profiler_Host_GetBaseMetrics_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
    const char *pMetricName; const char *pDescription; const char *pHwUnit;
    const char *pDimUnit; CUpti_MetricType metricType;
} CUpti_Profiler_Host_GetMetricProperties_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
    const char **ppMetricNames; size_t numMetrics;
} CUpti_Profiler_Host_ConfigAddMetrics_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize;
} CUpti_Profiler_Host_GetConfigImageSize_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
    size_t configImageSize; uint8_t *pConfigImage;
} CUpti_Profiler_Host_GetConfigImage_Params;
typedef struct {
    size_t structSize; void *pPriv; size_t configImageSize; uint8_t *pConfigImage;
    size_t numOfPasses;
} CUpti_Profiler_Host_GetNumOfPasses_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_Profiler_Host_Object *pHostObject;
    const uint8_t *pCounterDataImage; size_t counterDataImageSize; size_t rangeIndex;
    const char **ppMetricNames; size_t numMetrics; double *pMetricValues;
} CUpti_Profiler_Host_EvaluateToGpuValues_Params;

/* cupti_pmsampling.h */
typedef struct {
    size_t structSize; void *pPriv; CUpti_PmSampling_Object *pPmSamplingObject;
    size_t configSize; const uint8_t *pConfig; size_t hardwareBufferSize;
    uint64_t samplingInterval; CUpti_PmSampling_TriggerMode triggerMode;
    CUpti_PmSampling_HardwareBuffer_AppendMode hwBufferAppendMode;
} CUpti_PmSampling_SetConfig_Params;
typedef struct {
    size_t structSize; void *pPriv; size_t deviceIndex; CUpti_PmSampling_Object *pPmSamplingObject;
} CUpti_PmSampling_Enable_Params;
/* Disable, Start and Stop share this layout (three identical structs in the header). */
typedef struct {
    size_t structSize; void *pPriv; CUpti_PmSampling_Object *pPmSamplingObject;
} CUpti_PmSampling_Disable_Params, CUpti_PmSampling_Start_Params, CUpti_PmSampling_Stop_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_PmSampling_Object *pPmSamplingObject;
    uint8_t *pCounterDataImage; size_t counterDataImageSize;
    CUpti_PmSampling_DecodeStopReason decodeStopReason; uint8_t overflow;
} CUpti_PmSampling_DecodeData_Params;
typedef struct {
    size_t structSize; void *pPriv; size_t deviceIndex; size_t counterAvailabilityImageSize;
    uint8_t *pCounterAvailabilityImage;
} CUpti_PmSampling_GetCounterAvailability_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_PmSampling_Object *pPmSamplingObject;
    const char **pMetricNames; size_t numMetrics; uint32_t maxSamples; size_t counterDataSize;
} CUpti_PmSampling_GetCounterDataSize_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_PmSampling_Object *pPmSamplingObject;
    size_t counterDataSize; uint8_t *pCounterData;
} CUpti_PmSampling_CounterDataImage_Initialize_Params;
typedef struct {
    size_t structSize; void *pPriv; const uint8_t *pCounterDataImage; size_t counterDataImageSize;
    size_t numTotalSamples; size_t numPopulatedSamples; size_t numCompletedSamples;
} CUpti_PmSampling_GetCounterDataInfo_Params;
typedef struct {
    size_t structSize; void *pPriv; CUpti_PmSampling_Object *pPmSamplingObject;
    const uint8_t *pCounterDataImage; size_t counterDataImageSize; size_t sampleIndex;
    uint64_t startTimestamp; uint64_t endTimestamp;
} CUpti_PmSampling_CounterData_GetSampleInfo_Params;

#endif
