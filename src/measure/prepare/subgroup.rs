//! How to ask the device for a variant's subgroup size, or why it cannot give it.
use super::*;

/// Decide how to ask for the subgroup size, or why this device cannot.
pub fn subgroup_mode(
    info: &crate::vk::DeviceInfo,
    req: SubgroupReq,
    wg: [u32; 3],
) -> Result<SubgroupMode, String> {
    let invocations = wg[0] * wg[1] * wg[2];
    match req {
        SubgroupReq::Default => Ok(SubgroupMode::Default),
        SubgroupReq::Full => {
            if !info.compute_full_subgroups {
                return Err("the device lacks computeFullSubgroups".into());
            }
            if !wg[0].is_multiple_of(info.subgroup_size_max) {
                return Err(format!(
                    "full subgroups need workgroup x ({}) to be a multiple of maxSubgroupSize ({})",
                    wg[0], info.subgroup_size_max
                ));
            }
            Ok(SubgroupMode::Full)
        }
        SubgroupReq::Size(n) => {
            if !n.is_power_of_two() {
                return Err(format!("subgroup size {n} is not a power of two"));
            }
            if !info.subgroup_size_control {
                return Err("the device lacks subgroupSizeControl".into());
            }
            if !info.compute_required_subgroup_size {
                return Err("compute is not in requiredSubgroupSizeStages on this device".into());
            }
            if n < info.subgroup_size_min || n > info.subgroup_size_max {
                return Err(format!(
                    "subgroup size {n} is outside this device's range {}..{}",
                    info.subgroup_size_min, info.subgroup_size_max
                ));
            }
            if invocations > n * info.max_compute_workgroup_subgroups {
                return Err(format!(
                    "workgroup of {invocations} invocations needs more than maxComputeWorkgroupSubgroups ({}) subgroups of {n}",
                    info.max_compute_workgroup_subgroups
                ));
            }
            let full = info.compute_full_subgroups && wg[0].is_multiple_of(n);
            Ok(SubgroupMode::Required { size: n, full })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subgroup_requests_against_device_limits() {
        let mut info: crate::vk::DeviceInfo =
            serde_json::from_str(include_str!("../../../tests/data/device_h200.json")).unwrap();
        assert_eq!(
            subgroup_mode(&info, SubgroupReq::Size(64), [64, 1, 1]).unwrap_err(),
            "subgroup size 64 is outside this device's range 32..32"
        );
        assert_eq!(
            subgroup_mode(&info, SubgroupReq::Size(32), [64, 1, 1]).unwrap(),
            SubgroupMode::Required {
                size: 32,
                full: true
            }
        );
        assert_eq!(
            subgroup_mode(&info, SubgroupReq::Size(32), [48, 1, 1]).unwrap(),
            SubgroupMode::Required {
                size: 32,
                full: false
            }
        );
        assert!(subgroup_mode(&info, SubgroupReq::Full, [48, 1, 1])
            .unwrap_err()
            .contains("multiple of maxSubgroupSize"));
        info.compute_required_subgroup_size = false;
        assert!(subgroup_mode(&info, SubgroupReq::Size(32), [64, 1, 1])
            .unwrap_err()
            .contains("requiredSubgroupSizeStages"));
    }
}
