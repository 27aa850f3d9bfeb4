// The package ships no types; what the metrics tests read of its result.
declare module "parse-prometheus-text-format" {
  const parse: (text: string) => unknown[];
  export default parse;
}
