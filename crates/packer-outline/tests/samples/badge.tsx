import React, { useState } from "react";

/** Props of a badge. */
export interface BadgeProps {
  label: string;
  count?: number;
}

const colors = {
  low: "green",
  high: "red",
};

/** A label with a counter that turns red past ten. */
export function Badge({ label, count = 0 }: BadgeProps) {
  const [hover, setHover] = useState(false);
  const color = count > 10 ? colors.high : colors.low;
  return (
    <span
      style={{ color, fontWeight: hover ? "bold" : "normal" }}
      onMouseEnter={() => setHover(true)}
      onMouseLeave={() => setHover(false)}
    >
      {label}: {count}
    </span>
  );
}

export const BadgeList = ({ items }: { items: BadgeProps[] }) => {
  return (
    <ul>
      {items.map((item) => (
        <li key={item.label}>
          <Badge {...item} />
        </li>
      ))}
    </ul>
  );
};

export default Badge;
