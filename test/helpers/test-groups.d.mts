export declare const GROUPED_FOLDERS: readonly string[];
export declare const RUN_ALONE: readonly string[];
export declare function groupedFiles(folder: string): string[];
export declare function groupCount(folder: string): number;
export declare function filesOfGroup(folder: string, index: number): string[];
export declare function importGroup(folder: string, index: number): Promise<void>;
export declare function wholeRun(argv: {
  _: readonly unknown[];
  testPathPatterns?: readonly string[];
  findRelatedTests?: boolean;
  onlyChanged?: boolean;
  lastCommit?: boolean;
  changedSince?: string;
  watch?: boolean;
}): boolean;
export declare function groupIgnorePatterns(whole: boolean): string[];
