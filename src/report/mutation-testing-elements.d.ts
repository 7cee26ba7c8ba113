/** The browser bundle of Stryker's report web component, imported as text (Bun's `with { type: "text" }`). */
declare module "mutation-testing-elements/dist/mutation-test-elements.js" {
  const text: string;
  export default text;
}
