//! The CPU a report was measured on, as the operating system describes it: the model name
//! with the vendor, family and model numbers (from `/proc/cpuinfo`), the SIMD features the
//! blocked filters choose their kernels by, and the cache sizes of CPU 0 (from
//! `/sys/devices/system/cpu/cpu0/cache/index*/{level,type,size}`).
//!
//! The files are Linux's; elsewhere the name, numbers and caches are "not reported". The
//! SIMD features are detected by the standard library on every x86-64 OS, as the kernels
//! detect them; a CPU of another architecture has none of them. The parsers take the files'
//! text, so they are tested on samples from other machines.

use serde::{Deserialize, Serialize};

/// What a report says for a figure the operating system did not give.
pub const NOT_REPORTED: &str = "not reported";

/// The x86-64 SIMD features that decide which kernel a blocked filter runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Simd {
    /// AVX2: 256-bit integer vectors.
    pub avx2: bool,
    /// AVX-512 Foundation: 512-bit vectors, the blocked filter's AVX-512 kernel.
    pub avx512f: bool,
    /// AVX-512 Byte and Word instructions.
    pub avx512bw: bool,
    /// AVX-512 Vector Length extensions (the 512-bit instructions on 128 and 256 bits).
    pub avx512vl: bool,
}

impl Simd {
    /// The features of the CPU running this process, as `is_x86_feature_detected!` sees them
    /// (CPU and operating system both): none off x86-64.
    pub fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        {
            Simd {
                avx2: std::arch::is_x86_feature_detected!("avx2"),
                avx512f: std::arch::is_x86_feature_detected!("avx512f"),
                avx512bw: std::arch::is_x86_feature_detected!("avx512bw"),
                avx512vl: std::arch::is_x86_feature_detected!("avx512vl"),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            Simd::default()
        }
    }

    /// The widest vectors the kernels can use: `AVX-512` (F), `AVX2`, or `no AVX2`.
    pub fn level(&self) -> &'static str {
        if self.avx512f {
            "AVX-512"
        } else if self.avx2 {
            "AVX2"
        } else {
            "no AVX2"
        }
    }

    /// Every feature, present or not: `AVX2, AVX-512 F/BW/VL`, `AVX2, AVX-512 F (no BW,
    /// VL)`, `AVX2, no AVX-512`, `no AVX2, no AVX-512`.
    pub fn describe(&self) -> String {
        let avx2 = if self.avx2 { "AVX2" } else { "no AVX2" };
        let parts = [
            ("F", self.avx512f),
            ("BW", self.avx512bw),
            ("VL", self.avx512vl),
        ];
        let has: Vec<&str> = parts.iter().filter(|p| p.1).map(|p| p.0).collect();
        let lacks: Vec<&str> = parts.iter().filter(|p| !p.1).map(|p| p.0).collect();
        let avx512 = match (has.is_empty(), lacks.is_empty()) {
            (true, _) => "no AVX-512".to_string(),
            (false, true) => format!("AVX-512 {}", has.join("/")),
            (false, false) => format!("AVX-512 {} (no {})", has.join("/"), lacks.join(", ")),
        };
        format!("{avx2}, {avx512}")
    }
}

/// The data caches of CPU 0, in bytes, as the operating system reports them (`None`: not
/// reported).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Caches {
    /// The level 1 data cache.
    pub l1d: Option<u64>,
    /// The level 2 cache.
    pub l2: Option<u64>,
    /// The level 3 cache (shared between cores: its whole size, not a core's share).
    pub l3: Option<u64>,
}

impl Caches {
    /// The caches described by sysfs `(level, type, size)` file contents, one triple per
    /// `index*` folder: the level 1 `Data` cache, and the level 2 and 3 `Unified` (or
    /// `Data`) caches; instruction caches and entries that do not parse are left out.
    pub fn from_sysfs<'a>(entries: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> Self {
        let mut caches = Caches::default();
        for (level, kind, size) in entries {
            let kind = kind.trim();
            let Some(size) = bloom_core::internal::caches::parse_cache_size(size) else {
                continue;
            };
            let slot = match (level.trim(), kind) {
                ("1", "Data") => &mut caches.l1d,
                ("2", "Data" | "Unified") => &mut caches.l2,
                ("3", "Data" | "Unified") => &mut caches.l3,
                _ => continue,
            };
            *slot = (*slot).max(Some(size as u64));
        }
        caches
    }

    /// The caches of CPU 0 from sysfs (all `None` where it is absent).
    pub fn read() -> Self {
        let Ok(dir) = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache") else {
            return Caches::default();
        };
        let files: Vec<[String; 3]> = dir
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let read = |name: &str| std::fs::read_to_string(path.join(name)).ok();
                Some([read("level")?, read("type")?, read("size")?])
            })
            .collect();
        Caches::from_sysfs(
            files
                .iter()
                .map(|[l, t, s]| (l.as_str(), t.as_str(), s.as_str())),
        )
    }

    /// The last level reported, as `L3 32 MiB`, or `caches not reported`.
    pub fn last_level(&self) -> String {
        [("L3", self.l3), ("L2", self.l2), ("L1d", self.l1d)]
            .into_iter()
            .find_map(|(name, size)| size.map(|s| format!("{name} {}", cache_size(s))))
            .unwrap_or_else(|| format!("caches {NOT_REPORTED}"))
    }

    /// Every level: `L1d 48 KiB, L2 1 MiB, L3 32 MiB`, each `not reported` where absent, or
    /// `not reported` for all.
    pub fn describe(&self) -> String {
        if *self == Caches::default() {
            return NOT_REPORTED.into();
        }
        [("L1d", self.l1d), ("L2", self.l2), ("L3", self.l3)]
            .into_iter()
            .map(|(name, size)| {
                format!(
                    "{name} {}",
                    size.map_or_else(|| NOT_REPORTED.into(), cache_size)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A cache size in the binary unit it is a whole multiple of (`48 KiB`, `1 MiB`, `1.5 MiB`
/// where it is not).
pub fn cache_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (unit, scale) in UNITS {
        if bytes >= scale {
            return if bytes.is_multiple_of(scale) {
                format!("{} {unit}", bytes / scale)
            } else {
                format!("{:.1} {unit}", bytes as f64 / scale as f64)
            };
        }
    }
    format!("{bytes} B")
}

/// The CPU a report was measured on.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CpuInfo {
    /// The `model name` of `/proc/cpuinfo` (`AMD EPYC`, `Intel(R) Xeon(R) Platinum 8488C`).
    pub model_name: Option<String>,
    /// The `vendor_id` (`AuthenticAMD`, `GenuineIntel`).
    pub vendor: Option<String>,
    /// The `cpu family` number: with the model number, it tells apart generations that share
    /// a model name (a cloud's "AMD EPYC" is family 23 for Zen 1 and 2, 25 for Zen 3 and 4, 26
    /// for Zen 5).
    pub family: Option<u32>,
    /// The `model` number within the family.
    pub model: Option<u32>,
    /// The architecture the binary was built for (`x86_64`, `aarch64`).
    pub arch: Option<String>,
    /// The SIMD features (`None`: not recorded, in a report written before they were).
    pub simd: Option<Simd>,
    /// The cache sizes of CPU 0.
    pub caches: Caches,
}

impl CpuInfo {
    /// The CPU running this process: `/proc/cpuinfo`, sysfs and the detected features.
    pub fn read() -> CpuInfo {
        let mut cpu = std::fs::read_to_string("/proc/cpuinfo")
            .map(|text| CpuInfo::from_cpuinfo(&text))
            .unwrap_or_default();
        cpu.arch = Some(std::env::consts::ARCH.to_string());
        cpu.simd = Some(Simd::detect());
        cpu.caches = Caches::read();
        cpu
    }

    /// The name and numbers of the first processor in `/proc/cpuinfo` text (`key : value`
    /// lines, one block per logical CPU); nothing else is filled in.
    pub fn from_cpuinfo(text: &str) -> CpuInfo {
        let mut cpu = CpuInfo::default();
        for line in text.lines() {
            if line.trim().is_empty() {
                // The end of the first processor's block: the others repeat it.
                if cpu.model_name.is_some() || cpu.vendor.is_some() {
                    break;
                }
                continue;
            }
            let Some((key, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "model name" if !value.is_empty() => cpu.model_name = Some(value.to_string()),
                "vendor_id" if !value.is_empty() => cpu.vendor = Some(value.to_string()),
                "cpu family" => cpu.family = value.parse().ok(),
                "model" => cpu.model = value.parse().ok(),
                _ => {}
            }
        }
        cpu
    }

    /// A CPU known by its model name only, as reports written before the rest was recorded
    /// name it.
    pub fn named(model_name: &str) -> CpuInfo {
        CpuInfo {
            model_name: Some(model_name.to_string()),
            ..CpuInfo::default()
        }
    }

    /// The model name with the vendor and the numbers that tell generations apart: `AMD EPYC
    /// (AuthenticAMD family 26 model 2)`.
    pub fn name(&self) -> String {
        let base = match (&self.model_name, &self.vendor, &self.arch) {
            (Some(name), _, _) => name.clone(),
            (None, Some(vendor), _) => vendor.clone(),
            (None, None, Some(arch)) => format!("unknown {arch} CPU"),
            (None, None, None) => "unknown CPU".into(),
        };
        let mut numbers = Vec::new();
        if let (Some(vendor), Some(_)) = (&self.vendor, &self.model_name) {
            numbers.push(vendor.clone());
        }
        if let Some(family) = self.family {
            numbers.push(format!("family {family}"));
        }
        if let Some(model) = self.model {
            numbers.push(format!("model {model}"));
        }
        if numbers.is_empty() {
            base
        } else {
            format!("{base} ({})", numbers.join(" "))
        }
    }

    /// The SIMD features ([`Simd::describe`]), or `not reported`.
    pub fn simd_text(&self) -> String {
        self.simd
            .map_or_else(|| NOT_REPORTED.into(), |s| s.describe())
    }

    /// The title of the CPU's section in docs/tradeoffs.md: its name, the widest vectors and
    /// the last cache level, `AMD EPYC (AuthenticAMD family 26 model 2): AVX-512, L3 32 MiB`.
    pub fn heading(&self) -> String {
        let simd = self
            .simd
            .map_or_else(|| format!("SIMD {NOT_REPORTED}"), |s| s.level().into());
        format!("{}: {simd}, {}", self.name(), self.caches.last_level())
    }

    /// A name for the CPU made of lower-case letters, digits and dashes, the same for every
    /// machine with this model, family, model number and vector width (the cache sizes,
    /// which a virtual machine may report differently, are left out):
    /// `amd-epyc-f26-m2-avx512`. It marks the CPU's section in docs/tradeoffs.md and names
    /// the folder of its plots.
    pub fn key(&self) -> String {
        let name = self
            .model_name
            .as_deref()
            .or(self.vendor.as_deref())
            .unwrap_or("unknown-cpu");
        // Trademark signs, the words "CPU" and "Processor" and the nominal clock
        // (`@ 2.10GHz`) tell no two CPUs apart that the numbers do not, and lengthen every key.
        let name = name.split(" @ ").next().unwrap_or(name);
        let name = ["(R)", "(r)", "(TM)", "(tm)"]
            .iter()
            .fold(name.to_string(), |n, mark| n.replace(mark, " "));
        let name: Vec<&str> = name
            .split_whitespace()
            .filter(|w| !w.eq_ignore_ascii_case("cpu") && !w.eq_ignore_ascii_case("processor"))
            .collect();
        let mut parts = vec![slug(&name.join(" "))];
        if let Some(family) = self.family {
            parts.push(format!("f{family}"));
        }
        if let Some(model) = self.model {
            parts.push(format!("m{model}"));
        }
        if let Some(simd) = self.simd {
            // `avx512`, as the kernels are named, not `avx-512`.
            parts.push(slug(&simd.level().replace('-', "")));
        }
        parts.retain(|p| !p.is_empty());
        parts.join("-")
    }
}

/// `text` in lower case with every run of other characters than ASCII letters and digits
/// turned into one dash, none at either end.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    while out.ends_with('-') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The start of this project's AMD machine's `/proc/cpuinfo` (two logical CPUs).
    const AMD_CPUINFO: &str = "processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: 26
model\t\t: 2
model name\t: AMD EPYC
stepping\t: 1
cache size\t: 1024 KB
flags\t\t: fpu vme avx2 avx512f avx512bw avx512vl

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 26
model\t\t: 3
model name\t: AMD EPYC (the second block is not read)
";

    const INTEL_CPUINFO: &str = "processor\t: 0
vendor_id\t: GenuineIntel
cpu family\t: 6
model\t\t: 207
model name\t: Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz
";

    /// An ARM machine's: no model name, no vendor_id, no family.
    const ARM_CPUINFO: &str = "processor\t: 0
BogoMIPS\t: 50.00
Features\t: fp asimd evtstrm aes pmull sha1 sha2 crc32
CPU implementer\t: 0x41
CPU part\t: 0xd0c
";

    #[test]
    fn cpuinfo_gives_the_first_processor() {
        let amd = CpuInfo::from_cpuinfo(AMD_CPUINFO);
        assert_eq!(amd.model_name.as_deref(), Some("AMD EPYC"));
        assert_eq!(amd.vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!((amd.family, amd.model), (Some(26), Some(2)));
        assert_eq!(amd.name(), "AMD EPYC (AuthenticAMD family 26 model 2)");

        let intel = CpuInfo::from_cpuinfo(INTEL_CPUINFO);
        assert_eq!((intel.family, intel.model), (Some(6), Some(207)));
        assert_eq!(
            intel.name(),
            "Intel(R) Xeon(R) Platinum 8581C CPU @ 2.10GHz (GenuineIntel family 6 model 207)"
        );

        let mut arm = CpuInfo::from_cpuinfo(ARM_CPUINFO);
        assert_eq!(arm, CpuInfo::default());
        assert_eq!(arm.name(), "unknown CPU");
        arm.arch = Some("aarch64".into());
        assert_eq!(arm.name(), "unknown aarch64 CPU");
        assert_eq!(CpuInfo::from_cpuinfo(""), CpuInfo::default());
    }

    #[test]
    fn sysfs_caches_by_level_and_type() {
        // This machine's four index folders, in the order read_dir may give them.
        let caches = Caches::from_sysfs([
            ("3\n", "Unified\n", "32768K\n"),
            ("1\n", "Instruction\n", "32K\n"),
            ("1\n", "Data\n", "48K\n"),
            ("2\n", "Unified\n", "1024K\n"),
        ]);
        assert_eq!(
            caches,
            Caches {
                l1d: Some(48 << 10),
                l2: Some(1 << 20),
                l3: Some(32 << 20),
            }
        );
        assert_eq!(caches.describe(), "L1d 48 KiB, L2 1 MiB, L3 32 MiB");
        assert_eq!(caches.last_level(), "L3 32 MiB");

        // No L3, an unreadable size: left out, and said so.
        let partial = Caches::from_sysfs([("1", "Data", "32K"), ("2", "Unified", "lots")]);
        assert_eq!(
            partial.describe(),
            "L1d 32 KiB, L2 not reported, L3 not reported"
        );
        assert_eq!(partial.last_level(), "L1d 32 KiB");

        let none = Caches::from_sysfs([]);
        assert_eq!(none.describe(), "not reported");
        assert_eq!(none.last_level(), "caches not reported");
    }

    #[test]
    fn cache_sizes_read_in_whole_units() {
        assert_eq!(cache_size(48 << 10), "48 KiB");
        assert_eq!(cache_size(1 << 20), "1 MiB");
        assert_eq!(cache_size(3 << 19), "1.5 MiB");
        assert_eq!(cache_size(260 << 20), "260 MiB");
        assert_eq!(cache_size(2 << 30), "2 GiB");
        assert_eq!(cache_size(512), "512 B");
    }

    #[test]
    fn simd_features_are_all_named() {
        let all = Simd {
            avx2: true,
            avx512f: true,
            avx512bw: true,
            avx512vl: true,
        };
        assert_eq!(all.describe(), "AVX2, AVX-512 F/BW/VL");
        assert_eq!(all.level(), "AVX-512");
        let some = Simd {
            avx512vl: false,
            avx512bw: false,
            ..all
        };
        assert_eq!(some.describe(), "AVX2, AVX-512 F (no BW, VL)");
        let avx2 = Simd {
            avx2: true,
            ..Simd::default()
        };
        assert_eq!(avx2.describe(), "AVX2, no AVX-512");
        assert_eq!(avx2.level(), "AVX2");
        assert_eq!(Simd::default().describe(), "no AVX2, no AVX-512");
        assert_eq!(Simd::default().level(), "no AVX2");
    }

    #[test]
    fn headings_and_keys_tell_generations_apart() {
        let simd = Simd {
            avx2: true,
            avx512f: true,
            avx512bw: true,
            avx512vl: true,
        };
        let mut zen5 = CpuInfo::from_cpuinfo(AMD_CPUINFO);
        zen5.simd = Some(simd);
        zen5.caches = Caches {
            l1d: Some(48 << 10),
            l2: Some(1 << 20),
            l3: Some(32 << 20),
        };
        assert_eq!(
            zen5.heading(),
            "AMD EPYC (AuthenticAMD family 26 model 2): AVX-512, L3 32 MiB"
        );
        assert_eq!(zen5.key(), "amd-epyc-f26-m2-avx512");

        // The same model name, another generation: another key.
        let zen1 = CpuInfo {
            family: Some(23),
            model: Some(1),
            simd: Some(Simd {
                avx2: true,
                ..Simd::default()
            }),
            ..zen5.clone()
        };
        assert_eq!(zen1.key(), "amd-epyc-f23-m1-avx2");

        // The cache sizes a VM reports do not change the key.
        let smaller = CpuInfo {
            caches: Caches::default(),
            ..zen5.clone()
        };
        assert_eq!(smaller.key(), zen5.key());
        assert_eq!(
            smaller.heading(),
            "AMD EPYC (AuthenticAMD family 26 model 2): AVX-512, caches not reported"
        );

        let mut intel = CpuInfo::from_cpuinfo(INTEL_CPUINFO);
        intel.simd = Some(simd);
        assert_eq!(intel.key(), "intel-xeon-platinum-8581c-f6-m207-avx512");
        let rome = CpuInfo {
            model_name: Some("AMD EPYC 7B12 64-Core Processor".into()),
            family: Some(23),
            model: Some(49),
            ..zen1.clone()
        };
        assert_eq!(rome.key(), "amd-epyc-7b12-64-core-f23-m49-avx2");

        // A report written before the details were recorded: its model name only.
        let old = CpuInfo::named("AMD EPYC");
        assert_eq!(old.key(), "amd-epyc");
        assert_eq!(
            old.heading(),
            "AMD EPYC: SIMD not reported, caches not reported"
        );
        assert_eq!(old.simd_text(), "not reported");
    }

    #[test]
    fn this_machine_is_described() {
        let cpu = CpuInfo::read();
        assert_eq!(cpu.arch.as_deref(), Some(std::env::consts::ARCH));
        assert_eq!(cpu.simd, Some(Simd::detect()));
        let key = cpu.key();
        assert!(!key.is_empty());
        assert!(
            key.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{key}"
        );
    }
}
