// Coefficient files of the kernels model: the bundled data/kernels/overheads.yaml and the files
// `--latency-coeffs` and `blis fit --latency-model kernels` read and write (docs/latency.md "Kernels").

import { z } from "zod";
import { UserError } from "../../util/errors.js";
import { readYaml } from "../coefficientFile.js";
import { KERNEL_OVERHEADS } from "./kernelModel.js";

const nonNegative = z.number().finite().nonnegative();

export const KernelCoefficientsSchema = z.strictObject({
  alpha_coeffs: z.array(nonNegative).length(3),
  beta_coeffs: z.array(nonNegative).length(KERNEL_OVERHEADS.length),
});

const FileSchema = z.looseObject({ kernels_coefficients: KernelCoefficientsSchema });

export type KernelCoefficients = z.infer<typeof KernelCoefficientsSchema>;

const cache = new Map<string, KernelCoefficients>();

/** The `kernels_coefficients` block of a file; any problem is one line naming the file and key. */
export function loadKernelCoefficients(file: string, flag = "--latency-coeffs"): KernelCoefficients {
  const hit = cache.get(file);
  if (hit !== undefined) return hit;
  const parsed = FileSchema.safeParse(readYaml(file, flag));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join(".");
    throw new UserError(
      `${flag}: ${file}: ${where !== "" ? where + ": " : ""}${issue.message} (the kernels model reads kernels_coefficients)`,
    );
  }
  cache.set(file, parsed.data.kernels_coefficients);
  return parsed.data.kernels_coefficients;
}
